#include "dha/kube/label_selector.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace dha::kube {

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool is_qualified_name(std::string_view s) {
  if (s.empty() || s.size() > 63 || !alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool is_dns_subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'; });
}

// A small cursor over the selector text; every error names the position.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  LabelSelector::Requirement requirement() {
    skip_space();
    bool negated = false;
    if (peek() == '!') {
      negated = true;
      ++pos_;
      skip_space();
    }
    std::string key = word();
    if (!is_valid_label_key(key)) fail(fmt::format("invalid label key '{}'", key));
    skip_space();
    if (negated) return {std::move(key), LabelSelector::Op::DoesNotExist, {}};
    if (at_end() || peek() == ',') return {std::move(key), LabelSelector::Op::Exists, {}};
    if (peek() == '=' || peek() == '!') {
      LabelSelector::Op op = LabelSelector::Op::Equals;
      if (peek() == '!') {
        ++pos_;
        if (peek() != '=') fail("expected '=' after '!'");
        op = LabelSelector::Op::NotEquals;
      }
      ++pos_;
      if (op == LabelSelector::Op::Equals && peek() == '=') ++pos_;
      skip_space();
      std::string value = word();
      if (!is_valid_label_value(value)) fail(fmt::format("invalid label value '{}'", value));
      return {std::move(key), op, {std::move(value)}};
    }
    const std::string keyword = word();
    LabelSelector::Op op;
    if (keyword == "in") {
      op = LabelSelector::Op::In;
    } else if (keyword == "notin") {
      op = LabelSelector::Op::NotIn;
    } else {
      fail(fmt::format("expected '=', '!=', 'in' or 'notin' after '{}'", key));
    }
    skip_space();
    if (peek() != '(') fail("expected '(' to open the value set");
    ++pos_;
    std::vector<std::string> values;
    for (;;) {
      skip_space();
      std::string value = word();
      // An empty member of a set is almost always a typo ("(a,,b)", "()"): refuse it.
      if (value.empty() || !is_valid_label_value(value))
        fail(fmt::format("invalid value '{}' in the value set", value));
      values.push_back(std::move(value));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ')') {
        ++pos_;
        break;
      }
      fail("expected ',' or ')' in the value set");
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    return {std::move(key), op, std::move(values)};
  }

  bool separator() {
    skip_space();
    if (at_end()) return false;
    if (peek() != ',') fail("expected ',' between requirements");
    ++pos_;
    return true;
  }

 private:
  std::string word() {
    const std::size_t start = pos_;
    while (!at_end()) {
      const char c = peek();
      if (c == ',' || c == '=' || c == '!' || c == '(' || c == ')' || c == ' ' || c == '\t') break;
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t')) ++pos_;
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  [[noreturn]] void fail(const std::string& what) const {
    throw SelectorError(fmt::format("label selector '{}': {} at position {}", text_, what, pos_));
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

bool is_valid_label_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return is_qualified_name(key);
  return is_dns_subdomain(key.substr(0, slash)) && is_qualified_name(key.substr(slash + 1));
}

bool is_valid_label_value(std::string_view value) { return value.empty() || is_qualified_name(value); }

LabelSelector LabelSelector::parse(std::string_view text) {
  LabelSelector sel;
  bool blank = std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t'; });
  if (blank) return sel;
  Parser parser(text);
  do {
    sel.requirements_.push_back(parser.requirement());
  } while (parser.separator());
  std::stable_sort(sel.requirements_.begin(), sel.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return sel;
}

LabelSelector LabelSelector::from_map(const Labels& labels) {
  LabelSelector sel;
  for (const auto& [k, v] : labels) {
    if (!is_valid_label_key(k)) throw SelectorError(fmt::format("invalid label key '{}'", k));
    if (!is_valid_label_value(v)) throw SelectorError(fmt::format("invalid label value '{}' for key '{}'", v, k));
    sel.requirements_.push_back({k, Op::Equals, {v}});
  }
  return sel;
}

bool LabelSelector::matches(const Labels& labels) const {
  for (const auto& r : requirements_) {
    const auto it = labels.find(r.key);
    const bool has = it != labels.end();
    const auto in_values = [&] { return has && std::binary_search(r.values.begin(), r.values.end(), it->second); };
    bool ok = false;
    switch (r.op) {
      case Op::Equals:
        ok = has && it->second == r.values.front();
        break;
      case Op::NotEquals:
        ok = !has || it->second != r.values.front();
        break;
      case Op::In:
        ok = in_values();
        break;
      case Op::NotIn:
        ok = !in_values();
        break;
      case Op::Exists:
        ok = has;
        break;
      case Op::DoesNotExist:
        ok = !has;
        break;
    }
    if (!ok) return false;
  }
  return true;
}

std::string LabelSelector::to_string() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    switch (r.op) {
      case Op::Equals:
        out += r.key + "=" + r.values.front();
        break;
      case Op::NotEquals:
        out += r.key + "!=" + r.values.front();
        break;
      case Op::In:
        out += fmt::format("{} in ({})", r.key, fmt::join(r.values, ","));
        break;
      case Op::NotIn:
        out += fmt::format("{} notin ({})", r.key, fmt::join(r.values, ","));
        break;
      case Op::Exists:
        out += r.key;
        break;
      case Op::DoesNotExist:
        out += "!" + r.key;
        break;
    }
  }
  return out;
}

}  // namespace dha::kube
