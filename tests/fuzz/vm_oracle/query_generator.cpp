#include "query_generator.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "tenancy/promql_lexer.hpp"

namespace dha::fuzz {
namespace {

using Rng = std::mt19937_64;

uint64_t mix(uint64_t x) {  // splitmix64: decorrelates (seed, index) pairs
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

size_t below(Rng& rng, size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }
bool chance(Rng& rng, unsigned percent) { return below(rng, 100) < percent; }

template <typename T, size_t N>
const T& pick(Rng& rng, const T (&items)[N]) {
  return items[below(rng, N)];
}

// Words that are keywords somewhere in PromQL or MetricsQL, used as metric names, label names
// and calls where the grammar does not expect them.
constexpr std::string_view kKeywords[] = {"on",
                                          "ignoring",
                                          "group_left",
                                          "group_right",
                                          "by",
                                          "without",
                                          "bool",
                                          "offset",
                                          "or",
                                          "and",
                                          "unless",
                                          "atan2",
                                          "if",
                                          "ifnot",
                                          "default",
                                          "limit",
                                          "inf",
                                          "nan",
                                          "keep_metric_names",
                                          "sum",
                                          "rate",
                                          "ON",
                                          "Ignoring",
                                          "BY"};

constexpr std::string_view kPlainMetrics[] = {"x", "y", "up", "secret_metric", "pg_up", "redis_ops_total"};

constexpr std::string_view kLabelNames[] = {"pod",       "job",      "release",   "instance",
                                            "container", "__name__", "namespace", "on"};

constexpr std::string_view kDurations[] = {"5m", "1m", "30s", "1h",  "2m30s", "10m",
                                           "1d", "5",  "0.5", "1m:", "90",    "5i"};

constexpr std::string_view kBinaryOps[] = {
    "+", "-", "*", "/", "%", "^", "==", "!=", ">", "<=", "and", "or", "unless", "atan2", "default"};

constexpr std::string_view kAggregations[] = {"sum", "avg", "max", "min", "count", "topk", "count_values", "quantile"};

constexpr std::string_view kFunctions[] = {
    "rate", "abs",   "label_replace",      "label_join",    "clamp",    "vector", "scalar",    "absent",
    "sort", "round", "histogram_quantile", "max_over_time", "increase", "time",   "timestamp", "label_set"};

// Hostile label values: quotes, escapes, selector text, placeholders, non-ASCII, empty.
constexpr std::string_view kHostileValues[] = {"db",
                                               "pg-release",
                                               "a\"} or up{namespace=\"tenant-b",
                                               "a\\",
                                               "a\\\"",
                                               "line\nbreak",
                                               "\"",
                                               "${namespace}",
                                               "tenant-b",
                                               "x\"}) + on(secret_metric) sum(up{namespace=\"tenant-a",
                                               "",
                                               "caf\xc3\xa9",
                                               "tab\there",
                                               "\\n",
                                               "'`",
                                               ".*"};

constexpr std::string_view kHostileNamespaces[] = {
    "tenant-b",    "tenant-a\"} or x{namespace=\"tenant-b", "ns\\", "ns\nb", "t\xc3\xa9nant", "tenant-a ", ".*",
    "${namespace}"};

// Bits of query text spliced between a template's tokens by the mutator.
constexpr std::string_view kFragments[] = {"-",
                                           "+",
                                           "on(secret_metric)",
                                           "ignoring(pod)",
                                           "group_left(pod)",
                                           "group_right",
                                           "bool",
                                           "offset 5m",
                                           "offset -1m",
                                           "@ 100",
                                           "@ end()",
                                           "[5m]",
                                           "[10m:1m]",
                                           "(",
                                           ")",
                                           "{",
                                           "}",
                                           ",",
                                           "or",
                                           "unless",
                                           "and",
                                           "by (pod)",
                                           "without (pod)",
                                           "secret_metric",
                                           "on",
                                           "ignoring",
                                           "x{namespace=\"${namespace}\"}",
                                           "{__name__=\"secret_metric\"}",
                                           "\"${name}\"",
                                           "# c\n",
                                           "limit 1",
                                           "keep_metric_names",
                                           "WITH (a = 1)",
                                           "1",
                                           "=",
                                           "!=",
                                           "=~",
                                           "\"x\"",
                                           "on()",
                                           "-on(secret_metric)"};

class Builder {
 public:
  explicit Builder(Rng& rng) : rng_(rng) {}

  std::string expr(int depth) {
    if (depth <= 0) return leaf();
    switch (below(rng_, 12)) {
      case 0:
      case 1:
        return leaf();
      case 2:
        return binary(depth);
      case 3:
        return aggregation(depth);
      case 4:
      case 5:
        return function(depth);
      case 6:
        return std::string(chance(rng_, 50) ? "-" : "+") + expr(depth - 1);
      case 7:
        return "(" + expr(depth - 1) + ")";
      case 8:
        return subquery(depth);
      case 9:
        return hostile(depth);
      case 10:
        return binary(depth);
      default:
        return selector() + modifiers();
    }
  }

 private:
  std::string quoted(std::string_view text) {
    if (chance(rng_, 5)) return "'" + std::string(text) + "'";
    if (chance(rng_, 3)) return "`" + std::string(text) + "`";
    return "\"" + std::string(text) + "\"";
  }

  std::string string_literal() {
    static constexpr std::string_view kStrings[] = {"${name}", "${release}", "${name}-.*", "a\\\"b", "\\\\",
                                                    "\\x41",   "\\u00e9",    "",           "(.*)",   "$1"};
    return quoted(pick(rng_, kStrings));
  }

  std::string metric_name() {
    if (chance(rng_, 12)) return std::string(pick(rng_, kKeywords));
    return std::string(pick(rng_, kPlainMetrics));
  }

  // A metric name given as a __name__ value, which VictoriaMetrics prints back as a name.
  std::string name_value() {
    static constexpr std::string_view kOdd[] = {"a b", "1a", ":1m", "", "x{", "-", "caf\u00e9", "with", "a\\b"};
    if (chance(rng_, 20)) return std::string(pick(rng_, kKeywords));
    if (chance(rng_, 10)) return std::string(pick(rng_, kOdd));
    return std::string(pick(rng_, kPlainMetrics));
  }

  std::string matcher() {
    static constexpr std::string_view kOps[] = {"=", "!=", "=~", "!~"};
    std::string label(pick(rng_, kLabelNames));
    if (chance(rng_, 8)) label = std::string(pick(rng_, kKeywords));
    if (label == "__name__") return label + "=" + quoted(name_value());
    return label + std::string(pick(rng_, kOps)) + string_literal();
  }

  std::string namespace_matcher() {
    if (chance(rng_, 92)) return "namespace=\"${namespace}\"";
    static constexpr std::string_view kOdd[] = {"namespace=~\"${namespace}\"", "namespace!=\"x\"",
                                                "namespace=\"tenant-b\"", "namespace='${namespace}'",
                                                "NAMESPACE=\"${namespace}\""};
    return std::string(pick(rng_, kOdd));
  }

  std::string selector() {
    std::vector<std::string> matchers;
    if (!chance(rng_, 4)) matchers.push_back(namespace_matcher());
    for (size_t n = below(rng_, 3); n > 0; --n) matchers.push_back(matcher());
    if (chance(rng_, 6)) matchers.push_back("__name__=" + quoted(name_value()));
    for (size_t i = matchers.size(); i > 1; --i) std::swap(matchers[i - 1], matchers[below(rng_, i)]);
    std::string braces = "{";
    for (size_t i = 0; i < matchers.size(); ++i) {
      if (i > 0) braces += chance(rng_, 4) ? " or " : ",";
      braces += matchers[i];
    }
    if (chance(rng_, 5)) braces += ",";
    braces += "}";
    if (chance(rng_, 10) && !matchers.empty()) return braces;  // {__name__=...} or no name at all
    return metric_name() + braces;
  }

  std::string modifiers() {
    std::string out;
    if (chance(rng_, 20)) out += "[" + std::string(pick(rng_, kDurations)) + "]";
    if (chance(rng_, 10)) out += " offset " + std::string(chance(rng_, 30) ? "-" : "") + "5m";
    if (chance(rng_, 8)) {
      static constexpr std::string_view kAt[] = {"@ 1700000000", "@ start()", "@ end()", "@ -1"};
      out += " " + std::string(pick(rng_, kAt));
    } else if (chance(rng_, 3)) {
      out += " @ (" + (chance(rng_, 50) ? selector() + "[5i] @ end()" : std::string("time() - 60")) + ")";
    }
    return out;
  }

  std::string leaf() {
    switch (below(rng_, 8)) {
      case 0:
        return std::to_string(below(rng_, 10));
      case 1:
        return chance(rng_, 50) ? "vector(1)" : "time()";
      default:
        return selector() + modifiers();
    }
  }

  std::string label_list() {
    std::string out = "(";
    for (size_t n = below(rng_, 3), i = 0; i < n; ++i) {
      if (i > 0) out += ",";
      out += chance(rng_, 20) ? std::string(pick(rng_, kKeywords)) : std::string(pick(rng_, kLabelNames));
    }
    return out + ")";
  }

  std::string binary(int depth) {
    const std::string op(pick(rng_, kBinaryOps));
    std::string out = expr(depth - 1) + " " + op;
    if ((op == "==" || op == "!=" || op == ">" || op == "<=") && chance(rng_, 30)) out += " bool";
    if (chance(rng_, 30)) {
      out += std::string(chance(rng_, 60) ? " on" : " ignoring") + label_list();
      if (chance(rng_, 30)) out += std::string(chance(rng_, 60) ? " group_left" : " group_right") + label_list();
    }
    return out + " " + expr(depth - 1);
  }

  std::string aggregation(int depth) {
    const std::string name(pick(rng_, kAggregations));
    std::string args;
    if (name == "topk" || name == "quantile") args = (name == "topk" ? "2, " : "0.5, ");
    if (name == "count_values") args = quoted("namespace") + ", ";
    args += expr(depth - 1);
    const std::string grouping =
        chance(rng_, 50) ? std::string(chance(rng_, 70) ? " by " : " without ") + label_list() : "";
    std::string out = chance(rng_, 50) ? name + grouping + " (" + args + ")" : name + "(" + args + ")" + grouping;
    if (chance(rng_, 5)) out += " limit 1";
    return out;
  }

  std::string function(int depth) {
    const std::string name(pick(rng_, kFunctions));
    const std::string inner = expr(depth - 1);
    if (name == "rate" || name == "max_over_time" || name == "increase") {
      return name + "(" + inner + (chance(rng_, 70) ? "[5m]" : "") + ")";
    }
    if (name == "label_replace") {
      return name + "(" + inner + ", " + quoted(chance(rng_, 50) ? "namespace" : "pod") + ", " + string_literal() +
             ", " + quoted("namespace") + ", " + string_literal() + ")";
    }
    if (name == "label_join") {
      return name + "(" + inner + ", " + quoted("namespace") + ", \",\", " + quoted("pod") + ", " +
             quoted("namespace") + ")";
    }
    if (name == "label_set") return name + "(" + inner + ", " + quoted("namespace") + ", " + string_literal() + ")";
    if (name == "clamp") return name + "(" + inner + ", " + expr(0) + ", 10)";
    if (name == "round") return name + "(" + inner + ", 0.1)";
    if (name == "histogram_quantile") return name + "(0.9, " + inner + ")";
    if (name == "vector") return "vector(" + std::to_string(below(rng_, 5)) + ")";
    if (name == "time") return "time()";
    if (name == "timestamp" && chance(rng_, 50)) return name + "(" + inner + " offset 1m)";
    return name + "(" + inner + ")";
  }

  std::string subquery(int depth) {
    static constexpr std::string_view kRanges[] = {"[10m:1m]", "[5m:]", "[1h:5m]", "[30m:30s]"};
    return "max_over_time((" + expr(depth - 1) + ")" + std::string(pick(rng_, kRanges)) + ")";
  }

  // The forms a token-level check is most likely to misread.
  std::string hostile(int depth) {
    const std::string word(pick(rng_, kKeywords));
    switch (below(rng_, 9)) {
      case 8: {
        // A keyword-named metric in parentheses after an operator and its modifiers: the server
        // prints it without the parentheses and parses that print again.
        const std::string s = selector();
        std::string join = " " + std::string(pick(rng_, kBinaryOps));
        if (chance(rng_, 60)) join += std::string(chance(rng_, 50) ? " on" : " ignoring") + label_list();
        if (chance(rng_, 30)) join += std::string(chance(rng_, 50) ? " group_left" : " group_right") + label_list();
        return expr(depth - 1) + join + " (" + word + s.substr(s.find('{')) + ")";
      }
      case 0:
        return "-" + word + "(" + metric_name() + ")";  // sign, then a keyword used as a call
      case 1:
        return word + "(" + expr(depth - 1) + ")";
      case 2:
        return expr(depth - 1) + " * -" + word + "(" + metric_name() + ")";
      case 3:
        return expr(depth - 1) + " " + std::string(pick(rng_, kBinaryOps)) + " " + word;
      case 4:
        return "sum(" + word + ")";
      case 5:
        return "WITH (" + word + " = " + expr(depth - 1) + ") " + word;
      case 6: {
        const std::string s = selector();
        return word + s.substr(s.find('{'));  // a keyword as a metric name
      }
      default:
        return expr(depth - 1) + " " + word + " " + expr(depth - 1);
    }
  }

  Rng& rng_;
};

// Splices, drops, repeats or swaps whole tokens of a template (boundaries from the host's own
// lexer; a template it cannot lex is mutated at byte positions instead).
std::string mutate(Rng& rng, std::string text) {
  for (size_t rounds = 1 + below(rng, 3); rounds > 0; --rounds) {
    const tenancy::LexResult lexed = tenancy::lex_promql(text);
    std::vector<size_t> cuts{0};
    if (lexed.error.empty()) {
      for (const auto& t : lexed.tokens) cuts.push_back(t.offset);
    } else {
      for (size_t i = 0; i < text.size(); i += 1 + below(rng, 4)) cuts.push_back(i);
    }
    cuts.push_back(text.size());
    const size_t a = cuts[below(rng, cuts.size())];
    const size_t b = cuts[below(rng, cuts.size())];
    const size_t lo = std::min(a, b);
    const size_t hi = std::max(a, b);
    switch (below(rng, 4)) {
      case 0:
        text.insert(a, " " + std::string(pick(rng, kFragments)) + " ");
        break;
      case 1:
        if (hi - lo < 40) text.erase(lo, hi - lo);
        break;
      case 2:
        if (hi - lo < 60) text.insert(hi, text.substr(lo, hi - lo));
        break;
      default:
        text.insert(lo, " " + std::string(pick(rng, kKeywords)) + " ");
        break;
    }
  }
  return text;
}

}  // namespace

std::string TemplateInput::serialize() const {
  std::string out = query_template;
  for (const std::string* part : {&namespace_name, &name, &release}) {
    out += '\0';
    out += *part;
  }
  return out;
}

TemplateInput TemplateInput::parse(const std::string& bytes) {
  TemplateInput in{"", "tenant-a", "pg", "pg-release"};
  std::string* parts[] = {&in.query_template, &in.namespace_name, &in.name, &in.release};
  size_t start = 0;
  for (size_t i = 0; i < 4; ++i) {
    const size_t nul = bytes.find('\0', start);
    *parts[i] = bytes.substr(start, nul == std::string::npos ? std::string::npos : nul - start);
    if (nul == std::string::npos) break;
    start = nul + 1;
  }
  return in;
}

const std::vector<std::string>& generator_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out(std::begin(kPlainMetrics), std::end(kPlainMetrics));
    for (std::string_view k : kKeywords) out.emplace_back(k);
    return out;
  }();
  return names;
}

TemplateInput QueryGenerator::generate(uint64_t seed, uint64_t index) const {
  Rng rng(mix(seed ^ mix(index)));
  TemplateInput in;
  const size_t how = below(rng, 10);
  if (how < 3 && !seeds_.empty()) {
    in = seeds_[below(rng, seeds_.size())];
    in.query_template = mutate(rng, in.query_template);
  } else {
    Builder builder(rng);
    in.query_template = builder.expr(1 + static_cast<int>(below(rng, 4)));
    if (how < 5) in.query_template = mutate(rng, in.query_template);
  }
  in.namespace_name = chance(rng, 90) ? "tenant-a" : std::string(pick(rng, kHostileNamespaces));
  in.name = std::string(pick(rng, kHostileValues));
  in.release = std::string(pick(rng, kHostileValues));
  return in;
}

}  // namespace dha::fuzz
