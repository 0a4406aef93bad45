#include "cel_expression.hpp"

#include <cctype>
#include <cmath>
#include <optional>
#include <regex>
#include <variant>
#include <vector>

namespace dha::testing::apiserver {

namespace {

struct Error {
  std::string message;
};
struct Null {};
using Value = std::variant<Null, bool, std::int64_t, double, std::string, const Json*, Error>;

bool is_error(const Value& v) { return std::holds_alternative<Error>(v); }

Value from_json(const Json& j) {
  if (j.IsBool()) return j.GetBool();
  if (j.IsInt64()) return j.GetInt64();
  if (j.IsNumber()) return j.GetDouble();
  if (j.IsString()) return std::string(j.GetString(), j.GetStringLength());
  if (j.IsNull()) return Null{};
  return &j;
}

// Kubernetes' resource.Quantity grammar: sign, decimal number, at most one suffix.
const std::regex& quantity_grammar() {
  static const std::regex re(R"(^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$)");
  return re;
}

// The approximate value of a quantity that matched the grammar (Quantity.AsApproximateFloat64).
double quantity_value(const std::string& text) {
  std::size_t end = 0;
  double mantissa = std::stod(text, &end);
  const std::string suffix = text.substr(end);
  static const std::pair<const char*, double> kSuffixes[] = {{"Ki", 1024.0},
                                                             {"Mi", 1048576.0},
                                                             {"Gi", 1073741824.0},
                                                             {"Ti", 1099511627776.0},
                                                             {"Pi", 1125899906842624.0},
                                                             {"Ei", 1152921504606846976.0},
                                                             {"n", 1e-9},
                                                             {"u", 1e-6},
                                                             {"m", 1e-3},
                                                             {"", 1},
                                                             {"k", 1e3},
                                                             {"M", 1e6},
                                                             {"G", 1e9},
                                                             {"T", 1e12},
                                                             {"P", 1e15},
                                                             {"E", 1e18}};
  for (const auto& [name, factor] : kSuffixes)
    if (suffix == name) return mantissa * factor;
  return mantissa * std::pow(10.0, std::stod(suffix.substr(1)));  // e<int>
}

}  // namespace

struct CelExpression::Node {
  enum class Kind {
    literal,
    self_path,
    has,
    negate,
    logical_and,
    logical_or,
    conditional,
    compare,
    to_string,
    is_quantity,
    quantity,
    quantity_compare
  };
  Kind kind = Kind::literal;
  Value literal = Null{};
  std::vector<std::string> path;  // self_path and has: the fields after self
  std::string op;                 // compare; quantity_compare: isGreaterThan or isLessThan
  std::vector<std::shared_ptr<const Node>> args;

  Value eval(const Json& self) const;
};

namespace {

using Node = CelExpression::Node;
using NodePtr = std::shared_ptr<const Node>;

Value compare(const std::string& op, const Value& a, const Value& b) {
  int cmp = 0;
  auto number = [](const Value& v, double& out) {
    if (auto* i = std::get_if<std::int64_t>(&v)) return out = static_cast<double>(*i), true;
    if (auto* d = std::get_if<double>(&v)) return out = *d, true;
    return false;
  };
  double x = 0, y = 0;
  if (number(a, x) && number(b, y)) {
    cmp = x < y ? -1 : (x > y ? 1 : 0);
  } else if (std::holds_alternative<std::string>(a) && std::holds_alternative<std::string>(b)) {
    const int c = std::get<std::string>(a).compare(std::get<std::string>(b));
    cmp = c < 0 ? -1 : (c > 0 ? 1 : 0);
  } else if (std::holds_alternative<bool>(a) && std::holds_alternative<bool>(b) && (op == "==" || op == "!=")) {
    cmp = std::get<bool>(a) == std::get<bool>(b) ? 0 : 1;
  } else {
    return Error{"no matching overload for '" + op + "'"};
  }
  return (op == ">=" && cmp >= 0) || (op == "<=" && cmp <= 0) || (op == ">" && cmp > 0) || (op == "<" && cmp < 0) ||
         (op == "==" && cmp == 0) || (op == "!=" && cmp != 0);
}

}  // namespace

Value Node::eval(const Json& self) const {
  switch (kind) {
    case Kind::literal:
      return literal;
    case Kind::self_path:
    case Kind::has: {
      const Json* cur = &self;
      for (std::size_t i = 0; i < path.size(); ++i) {
        if (!cur->IsObject()) return Error{"no such key: " + path[i]};
        const Json* next = member(*cur, path[i]);
        if (next == nullptr) {
          if (kind == Kind::has && i + 1 == path.size()) return false;
          return Error{"no such key: " + path[i]};
        }
        cur = next;
      }
      if (kind == Kind::has) return true;
      return from_json(*cur);
    }
    case Kind::negate: {
      Value v = args[0]->eval(self);
      if (is_error(v)) return v;
      if (auto* b = std::get_if<bool>(&v)) return !*b;
      return Error{"no matching overload for '!_'"};
    }
    case Kind::logical_and:
    case Kind::logical_or: {
      // CEL's commutative logic: a decisive side wins over an error on the other.
      const bool decisive = kind == Kind::logical_or;
      Value a = args[0]->eval(self);
      if (auto* b = std::get_if<bool>(&a); b && *b == decisive) return decisive;
      Value c = args[1]->eval(self);
      if (auto* b = std::get_if<bool>(&c); b && *b == decisive) return decisive;
      if (is_error(a)) return a;
      if (is_error(c)) return c;
      if (!std::holds_alternative<bool>(a) || !std::holds_alternative<bool>(c))
        return Error{std::string("no matching overload for '") + (decisive ? "||" : "&&") + "'"};
      return !decisive;
    }
    case Kind::conditional: {
      Value c = args[0]->eval(self);
      if (is_error(c)) return c;
      auto* b = std::get_if<bool>(&c);
      if (b == nullptr) return Error{"no matching overload for '_?_:_'"};
      return args[*b ? 1 : 2]->eval(self);
    }
    case Kind::compare: {
      Value a = args[0]->eval(self);
      if (is_error(a)) return a;
      Value b = args[1]->eval(self);
      if (is_error(b)) return b;
      return compare(op, a, b);
    }
    case Kind::to_string: {
      Value v = args[0]->eval(self);
      if (is_error(v) || std::holds_alternative<std::string>(v)) return v;
      if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
      if (auto* b = std::get_if<bool>(&v)) return std::string(*b ? "true" : "false");
      return Error{"no matching overload for 'string'"};
    }
    case Kind::is_quantity:
    case Kind::quantity: {
      Value v = args[0]->eval(self);
      if (is_error(v)) return v;
      auto* text = std::get_if<std::string>(&v);
      if (text == nullptr) return Error{"no matching overload for 'quantity'"};
      const bool valid = std::regex_match(*text, quantity_grammar());
      if (kind == Kind::is_quantity) return valid;
      if (!valid) return Error{"quantities must match the regular expression"};
      return quantity_value(*text);
    }
    case Kind::quantity_compare: {
      Value a = args[0]->eval(self);
      if (is_error(a)) return a;
      Value b = args[1]->eval(self);
      if (is_error(b)) return b;
      const double x = std::get<double>(a), y = std::get<double>(b);
      return op == "isGreaterThan" ? x > y : x < y;
    }
  }
  return Error{"unreachable"};
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text) {}

  NodePtr parse() {
    NodePtr root = expr();
    skip_space();
    return root && pos_ == text_.size() ? root : nullptr;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool eat(const std::string& token) {
    skip_space();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  static NodePtr make(Node::Kind kind, std::vector<NodePtr> args, std::string op = {}) {
    for (const auto& a : args)
      if (!a) return nullptr;
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->args = std::move(args);
    n->op = std::move(op);
    return n;
  }

  NodePtr expr() {
    NodePtr cond = logical(Node::Kind::logical_or);
    if (!cond || !eat("?")) return cond;
    NodePtr then = expr();
    if (!eat(":")) return nullptr;
    return make(Node::Kind::conditional, {cond, then, expr()});
  }
  NodePtr logical(Node::Kind kind) {
    const bool is_or = kind == Node::Kind::logical_or;
    NodePtr left = is_or ? logical(Node::Kind::logical_and) : unary();
    while (left && eat(is_or ? "||" : "&&"))
      left = make(kind, {left, is_or ? logical(Node::Kind::logical_and) : unary()});
    return left;
  }
  NodePtr unary() {
    skip_space();
    if (text_.compare(pos_, 2, "!=") != 0 && eat("!")) return make(Node::Kind::negate, {unary()});
    NodePtr left = primary();
    for (const char* op : {"==", "!=", ">=", "<=", ">", "<"})
      if (left && eat(op)) return make(Node::Kind::compare, {left, primary()}, op);
    return left;
  }
  std::optional<std::vector<std::string>> self_fields() {
    skip_space();
    if (text_.compare(pos_, 4, "self") != 0 || (pos_ + 4 < text_.size() && ident_char(text_[pos_ + 4])))
      return std::nullopt;
    pos_ += 4;
    std::vector<std::string> fields;
    while (pos_ < text_.size() && text_[pos_] == '.') {
      std::size_t start = ++pos_;
      while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
      if (start == pos_) return std::nullopt;
      fields.push_back(text_.substr(start, pos_ - start));
    }
    return fields;
  }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
  NodePtr call(Node::Kind kind) {
    NodePtr arg = expr();
    if (!eat(")")) return nullptr;
    return make(kind, {arg});
  }
  NodePtr primary() {
    skip_space();
    if (eat("(")) {
      NodePtr inner = expr();
      return eat(")") ? inner : nullptr;
    }
    if (eat("has(")) {
      auto fields = self_fields();
      if (!fields || fields->empty() || !eat(")")) return nullptr;
      auto n = std::make_shared<Node>();
      n->kind = Node::Kind::has;
      n->path = *fields;
      return n;
    }
    if (eat("string(")) return call(Node::Kind::to_string);
    if (eat("isQuantity(")) return call(Node::Kind::is_quantity);
    if (eat("quantity(")) {
      NodePtr q = call(Node::Kind::quantity);
      for (const char* method : {"isGreaterThan", "isLessThan"}) {
        if (!q || !eat(std::string(".") + method + "(")) continue;
        skip_space();
        if (!eat("quantity(")) return nullptr;
        NodePtr other = call(Node::Kind::quantity);
        if (!eat(")")) return nullptr;
        return make(Node::Kind::quantity_compare, {q, other}, method);
      }
      return nullptr;  // a bare quantity is not a value the rest of the subset compares
    }
    if (auto fields = self_fields()) {
      auto n = std::make_shared<Node>();
      n->kind = Node::Kind::self_path;
      n->path = *fields;
      return n;
    }
    return literal();
  }
  NodePtr literal() {
    auto n = std::make_shared<Node>();
    if (eat("true")) return n->literal = true, n;
    if (eat("false")) return n->literal = false, n;
    if (pos_ < text_.size() && (text_[pos_] == '\'' || text_[pos_] == '"')) {
      const char quote = text_[pos_];
      const auto end = text_.find(quote, pos_ + 1);
      if (end == std::string::npos) return nullptr;
      n->literal = text_.substr(pos_ + 1, end - pos_ - 1);
      pos_ = end + 1;
      return n;
    }
    std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == start || (pos_ == start + 1 && text_[start] == '-')) return nullptr;
    n->literal = static_cast<std::int64_t>(std::stoll(text_.substr(start, pos_ - start)));
    return n;
  }

  const std::string& text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::shared_ptr<const CelExpression> CelExpression::compile(const std::string& rule) {
  try {
    NodePtr root = Parser(rule).parse();
    if (!root) return nullptr;
    return std::make_shared<const CelExpression>(std::move(root));
  } catch (const std::exception&) {  // an integer literal out of range
    return nullptr;
  }
}

std::string CelExpression::evaluate(const Json& self) const {
  Value v = root_->eval(self);
  if (auto* e = std::get_if<Error>(&v)) return "error: " + e->message;
  auto* b = std::get_if<bool>(&v);
  if (b == nullptr) return "error: rule did not evaluate to a bool";
  return *b ? "" : "false";
}

}  // namespace dha::testing::apiserver
