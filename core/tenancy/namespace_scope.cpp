#include "tenancy/namespace_scope.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <vector>

#include "tenancy/promql_lexer.hpp"
#include "tenancy/query_functions.hpp"

namespace dha::tenancy {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Keywords followed by a parenthesised list of label names.
bool takes_label_list(std::string_view w) {
  static constexpr std::array<std::string_view, 6> kWords{"by",       "without",    "on",
                                                          "ignoring", "group_left", "group_right"};
  return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

// Binary-operator keywords (PromQL, plus MetricsQL's if/ifnot/default) and the bool modifier.
// Case-insensitive, as in both languages.
bool is_binary_keyword(std::string_view w) {
  static constexpr std::array<std::string_view, 8> kWords{"and",  "or", "unless", "atan2",
                                                          "bool", "if", "ifnot",  "default"};
  return std::find(kWords.begin(), kWords.end(), w) != kWords.end();
}

bool is_comparison(const Token& t) {
  return t.kind == TokenKind::kOperator &&
         (t.text == "==" || t.text == "!=" || t.text == ">" || t.text == "<" || t.text == ">=" || t.text == "<=");
}

// What an opening parenthesis started, to know what its closing one ends.
enum class Paren { kGroup, kCall, kAggregation };

bool is_number_word(std::string_view w) { return w == "inf" || w == "nan"; }

// Metric names VictoriaMetrics cannot carry through its own parse: it prints the parsed query
// (without the parentheses around a lone operand) and parses the print again, and after an
// operator (a sign is `0 -`) it reads on, ignoring and bool as modifiers, after an on/ignoring
// list group_left and group_right (1.79.5 panics and exits there), and inf and nan as numbers
// anywhere. Case-insensitive.
bool misread_metric_name(std::string_view name) {
  const std::string w = lower(name);
  return w == "on" || w == "ignoring" || w == "bool" || w == "group_left" || w == "group_right" || is_number_word(w);
}

struct Matcher {
  std::string label;
  std::string op;
  std::string value;
  size_t offset;
};

class ScopeChecker {
 public:
  ScopeChecker(const std::vector<Token>& tokens, std::string_view ns) : t_(tokens), ns_(ns) {}

  std::string run() {
    for (i_ = 0; i_ < t_.size() && reason_.empty();) step();
    if (reason_.empty() && !parens_.empty()) refuse("unbalanced '(' in the query");
    return reason_;
  }

 private:
  const Token* peek(size_t ahead = 0) const { return i_ + ahead < t_.size() ? &t_[i_ + ahead] : nullptr; }
  bool next_is(TokenKind k, size_t ahead = 1) const {
    const Token* n = peek(ahead);
    return n != nullptr && n->kind == k;
  }
  void refuse(std::string why) {
    if (reason_.empty()) reason_ = std::move(why);
  }

  void step() {
    const Token& tok = t_[i_];
    switch (tok.kind) {
      case TokenKind::kIdentifier:
        identifier(tok);
        return;
      case TokenKind::kLeftBrace:
        selector_braces("{...}", tok.offset);
        return;
      case TokenKind::kLeftBracket:
        range_brackets();
        return;
      case TokenKind::kRightBrace:
        refuse("unbalanced '}' at offset " + std::to_string(tok.offset));
        return;
      case TokenKind::kAt:
        at_modifier();
        return;
      case TokenKind::kColon:
        // Ranges consume their own colons. Anywhere else VictoriaMetrics reads the colon as the
        // start of a metric name (`:1m` selects the series named :1m, in every namespace).
        refuse("':' at offset " + std::to_string(tok.offset) + " outside a range starts a metric name");
        return;
      case TokenKind::kLeftParen:
        parens_.push_back(Paren::kGroup);
        ++i_;
        return;
      case TokenKind::kRightParen:
        if (parens_.empty()) {
          refuse("unbalanced ')' at offset " + std::to_string(tok.offset));
          return;
        }
        if (parens_.back() == Paren::kAggregation) aggregation_closed_at_ = i_;
        parens_.pop_back();
        ++i_;
        return;
      default:
        ++i_;
    }
  }

  // Whether the token at `j` can end the left operand of a binary operator: a closing bracket
  // of any kind, a number, a string, or a name that is not itself a keyword waiting for more.
  bool ends_operand(size_t j) const {
    const Token& t = t_[j];
    switch (t.kind) {
      case TokenKind::kRightParen:
        // The list of on/ignoring/group_left/group_right ends a modifier, and the right operand
        // is still to come: `x and on() -ignoring(y)` is minus a call of ignoring.
        return std::find(join_lists_closed_at_.begin(), join_lists_closed_at_.end(), j) == join_lists_closed_at_.end();
      case TokenKind::kRightBrace:
      case TokenKind::kRightBracket:
      case TokenKind::kNumber:
      case TokenKind::kString:
        return true;
      case TokenKind::kIdentifier: {
        const std::string w = lower(t.text);
        return !is_binary_keyword(w) && !takes_label_list(w) && w != "offset";
      }
      default:
        return false;
    }
  }

  // Whether the operator at `j` is binary: it has a left operand. The same '-' or '+' right
  // after '(' or ',' or another operator is a sign, and what follows a sign is an operand,
  // never an on/ignoring list (VictoriaMetrics reads `-on(x)` as minus a call of on).
  bool binary_operator_at(size_t j) const {
    const Token& t = t_[j];
    if (t.kind != TokenKind::kOperator || t.text == "=" || t.text == "=~" || t.text == "!~") return false;
    return j > 0 && ends_operand(j - 1);
  }

  // Whether a modifier that takes a label list stands where the grammar puts it: by/without
  // right after an aggregation's name or its closing parenthesis, on/ignoring right after a
  // binary operator (or its bool), group_left/group_right right after an on/ignoring list.
  // Elsewhere the word is not a modifier, and what follows it is no label list.
  bool modifier_in_place(const std::string& word) const {
    if (i_ == 0) return false;
    const Token& prev = t_[i_ - 1];
    const std::string prev_word = prev.kind == TokenKind::kIdentifier ? lower(prev.text) : std::string();
    if (word == "by" || word == "without")
      return is_aggregation(prev_word) || (prev.kind == TokenKind::kRightParen && aggregation_closed_at_ == i_ - 1);
    if (word == "on" || word == "ignoring")
      return binary_operator_at(i_ - 1) ||
             (prev_word == "bool" && i_ >= 2 && is_comparison(t_[i_ - 2]) && binary_operator_at(i_ - 2)) ||
             (prev_word != "bool" && is_binary_keyword(prev_word) && binary_keyword_at_ == i_ - 1);
    return prev.kind == TokenKind::kRightParen && join_list_closed_at_ == i_ - 1;  // group_left/right
  }

  // A keyword counts as one only where the grammar puts it; anywhere else the same word would be
  // a metric name to VictoriaMetrics (MetricsQL keywords are contextual), so it falls through to
  // the selector rules.
  bool keyword(const std::string& word) {
    const Token* next = peek(1);
    const Token* prev = i_ > 0 ? &t_[i_ - 1] : nullptr;
    if (takes_label_list(word)) {
      if (!modifier_in_place(word)) return false;
      if (next != nullptr && next->kind == TokenKind::kLeftParen) {
        ++i_;
        label_list();
        if (word == "on" || word == "ignoring") join_list_closed_at_ = i_ - 1;
        if (word != "by" && word != "without") join_lists_closed_at_.push_back(i_ - 1);
        return true;
      }
      return word == "group_left" || word == "group_right";
    }
    // offset, limit and keep_metric_names modify the operand before them; with none there (a
    // join's label list is none), the word is a metric.
    const bool after_operand = prev != nullptr && ends_operand(i_ - 1);
    if (word == "offset") {
      return after_operand && next != nullptr &&
             (next->kind == TokenKind::kNumber || (next->kind == TokenKind::kOperator && next->text == "-"));
    }
    if (word == "limit") return after_operand && next != nullptr && next->kind == TokenKind::kNumber;
    if (word == "keep_metric_names") return after_operand && prev->kind == TokenKind::kRightParen;
    if (is_binary_keyword(word)) {
      // bool only after a comparison; the others only after an operand: not after another
      // keyword (`3 and unless unless y` is `and` of the metric unless), nor after a join's
      // label list.
      const bool keyword_after_operand =
          word == "bool" ? prev != nullptr && is_comparison(*prev) && binary_operator_at(i_ - 1) : after_operand;
      const bool before_operand =
          next != nullptr && (next->kind == TokenKind::kIdentifier || next->kind == TokenKind::kString ||
                              next->kind == TokenKind::kNumber || next->kind == TokenKind::kLeftParen ||
                              next->kind == TokenKind::kLeftBrace ||
                              (next->kind == TokenKind::kOperator && (next->text == "-" || next->text == "+")));
      if (keyword_after_operand && before_operand) binary_keyword_at_ = i_;
      return keyword_after_operand && before_operand;
    }
    return is_number_word(word);
  }

  void identifier(const Token& tok) {
    const std::string word = lower(tok.text);
    const size_t before = i_;
    if (keyword(word)) {
      if (i_ == before) ++i_;  // label_list() has already moved past its list
      return;
    }
    if (next_is(TokenKind::kLeftParen)) {  // a function call: its arguments are checked as they come
      if (word == "with") {
        refuse("MetricsQL WITH at offset " + std::to_string(tok.offset) +
               " is not allowed: its templates hide what the query selects");
        return;
      }
      if (!is_known_function(word)) {
        refuse("unknown function " + tok.text + " at offset " + std::to_string(tok.offset) +
               "; only PromQL and MetricsQL functions are allowed");
        return;
      }
      parens_.push_back(is_aggregation(word) ? Paren::kAggregation : Paren::kCall);
      i_ += 2;
      return;
    }
    if (is_aggregation(word) && peek(1) != nullptr && peek(1)->kind == TokenKind::kIdentifier) {
      const std::string modifier = lower(peek(1)->text);
      if (modifier == "by" || modifier == "without") {  // sum by (pod) (...)
        ++i_;
        return;
      }
    }
    // Anything else is a metric name, and a selector.
    ++i_;
    if (next_is(TokenKind::kLeftBrace, 0)) {
      selector_braces(tok.text, tok.offset);
    } else {
      refuse("selector " + tok.text + " at offset " + std::to_string(tok.offset) +
             " has no label matchers; it needs namespace=\"" + std::string(ns_) + "\"");
    }
  }

  // ( label, label, ... ) after by/without/on/ignoring/group_left/group_right.
  void label_list() {
    const size_t open = t_[i_].offset;
    for (++i_; i_ < t_.size(); ++i_) {
      const TokenKind k = t_[i_].kind;
      if (k == TokenKind::kRightParen) {
        ++i_;
        return;
      }
      if (k != TokenKind::kIdentifier && k != TokenKind::kString && k != TokenKind::kComma) {
        refuse("unexpected '" + t_[i_].text + "' in the label list at offset " + std::to_string(open));
        return;
      }
    }
    refuse("unterminated label list at offset " + std::to_string(open));
  }

  // @ <timestamp>, @ start(), @ end(). VictoriaMetrics also takes an expression after @, but
  // prints it back without its parentheses and cannot parse that (1.79.5 exits on
  // `x[5i] @ (y[5i] @ end())`).
  void at_modifier() {
    size_t j = i_ + 1;
    const auto is = [&](size_t k, TokenKind kind) { return k < t_.size() && t_[k].kind == kind; };
    if (is(j, TokenKind::kOperator) && (t_[j].text == "-" || t_[j].text == "+")) ++j;
    if (is(j, TokenKind::kNumber)) {
      i_ = j + 1;
      return;
    }
    if (j == i_ + 1 && is(j, TokenKind::kIdentifier) && (lower(t_[j].text) == "start" || lower(t_[j].text) == "end") &&
        is(j + 1, TokenKind::kLeftParen) && is(j + 2, TokenKind::kRightParen)) {
      i_ = j + 3;
      return;
    }
    refuse("the @ at offset " + std::to_string(t_[i_].offset) + " takes a timestamp, start() or end()");
  }

  // [5m], [30m:1m], [30m:] — durations and numbers only.
  void range_brackets() {
    const size_t open = t_[i_].offset;
    for (++i_; i_ < t_.size(); ++i_) {
      const TokenKind k = t_[i_].kind;
      if (k == TokenKind::kRightBracket) {
        ++i_;
        return;
      }
      if (k != TokenKind::kNumber && k != TokenKind::kColon) {
        refuse("unexpected '" + t_[i_].text + "' in a range at offset " + std::to_string(open));
        return;
      }
    }
    refuse("unterminated range at offset " + std::to_string(open));
  }

  // { matcher, matcher or matcher, ... } at t_[i_]; each or-group is a selector of its own.
  void selector_braces(const std::string& name, size_t offset) {
    ++i_;
    std::vector<Matcher> group;
    auto close_group = [&] {
      check_group(name, offset, group);
      group.clear();
    };
    while (reason_.empty()) {
      const Token* tok = peek();
      if (tok == nullptr) {
        refuse("unterminated selector " + name + " at offset " + std::to_string(offset));
        return;
      }
      if (tok->kind == TokenKind::kRightBrace) {
        ++i_;
        close_group();
        return;
      }
      if (tok->kind == TokenKind::kComma) {
        ++i_;
        continue;
      }
      if (tok->kind == TokenKind::kIdentifier && lower(tok->text) == "or" && !next_is(TokenKind::kOperator)) {
        ++i_;
        close_group();
        continue;
      }
      if (tok->kind == TokenKind::kString && !next_is(TokenKind::kOperator)) {
        if (misread_metric_name(tok->text)) refuse(misread_name_reason(tok->text, tok->offset));
        ++i_;  // {"metric.name", ...}: a quoted metric name
        continue;
      }
      if ((tok->kind != TokenKind::kIdentifier && tok->kind != TokenKind::kString) || !next_is(TokenKind::kOperator) ||
          !next_is(TokenKind::kString, 2)) {
        refuse("selector " + name + " at offset " + std::to_string(offset) +
               " has a malformed label matcher at offset " + std::to_string(tok->offset));
        return;
      }
      const std::string& op = t_[i_ + 1].text;
      if (op != "=" && op != "!=" && op != "=~" && op != "!~") {
        refuse("selector " + name + " at offset " + std::to_string(offset) + " has an unknown matcher operator " + op);
        return;
      }
      group.push_back(Matcher{tok->text, op, t_[i_ + 2].text, tok->offset});
      i_ += 3;
    }
  }

  static std::string misread_name_reason(std::string_view metric, size_t offset) {
    return "the metric at offset " + std::to_string(offset) + " is named like a keyword (" + std::string(metric) +
           "), which VictoriaMetrics misreads where it follows an operator";
  }

  void check_group(const std::string& name, size_t offset, const std::vector<Matcher>& group) {
    const std::string where = "selector " + name + " at offset " + std::to_string(offset);
    if (misread_metric_name(name)) {
      refuse(misread_name_reason(name, offset));
      return;
    }
    bool pinned = false;
    for (const Matcher& m : group) {
      if (m.label == "__name__" && m.op == "=" && misread_metric_name(m.value)) {
        refuse(misread_name_reason(m.value, m.offset));
        return;
      }
      if (m.label != "namespace") continue;
      if (m.op != "=") {
        refuse(where + " matches namespace with " + m.op + "; only namespace=\"" + std::string(ns_) + "\" is allowed");
        return;
      }
      if (m.value != ns_) {
        refuse(where + " reads namespace \"" + m.value + "\", not \"" + std::string(ns_) + "\"");
        return;
      }
      pinned = true;
    }
    if (!pinned) refuse(where + " lacks namespace=\"" + std::string(ns_) + "\"");
  }

  const std::vector<Token>& t_;
  std::string_view ns_;
  size_t i_ = 0;
  std::string reason_;
  std::vector<Paren> parens_;
  // Token positions that make the next token a modifier (SIZE_MAX: none yet).
  size_t aggregation_closed_at_ = SIZE_MAX;
  size_t join_list_closed_at_ = SIZE_MAX;
  size_t binary_keyword_at_ = SIZE_MAX;
  // Where each label list of on/ignoring/group_left/group_right closed.
  std::vector<size_t> join_lists_closed_at_;
};

}  // namespace

std::string namespace_scope_violation(std::string_view query, std::string_view namespace_name) {
  if (namespace_name.empty()) return "no namespace to scope the query to";
  const LexResult lexed = lex_promql(query);
  if (!lexed.error.empty()) return "cannot read the query: " + lexed.error;
  if (lexed.tokens.empty()) return "the query is empty";
  return ScopeChecker(lexed.tokens, namespace_name).run();
}

}  // namespace dha::tenancy
