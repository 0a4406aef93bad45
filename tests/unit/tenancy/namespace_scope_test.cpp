#include <gtest/gtest.h>

#include <string>

#include "tenancy/namespace_scope.hpp"

namespace dha::tenancy {
namespace {

struct Case {
  const char* name;
  const char* query;
  const char* refusal_part;  // nullptr: accepted
};

TEST(NamespaceScope, TableOfQueries) {
  const Case cases[] = {
      // Accepted: every selector pinned.
      {"simple", R"(up{namespace="tenant-a"})", nullptr},
      {"nameless selector", R"({__name__="up", namespace="tenant-a"})", nullptr},
      {"quoted metric name", R"({"up", namespace="tenant-a"})", nullptr},
      {"quoted label name", R"(up{"namespace"="tenant-a"})", nullptr},
      {"trailing comma", R"(up{namespace="tenant-a",})", nullptr},
      {"postgres driver",
       R"(sum( cnpg_backends_total{namespace="tenant-a", state="active"} * on(namespace,pod) group_left() kube_pod_labels{namespace="tenant-a", label_cnpg_io_instance_role="replica"} ))",
       nullptr},
      {"rate and range",
       R"(sum(rate(container_cpu_usage_seconds_total{namespace="tenant-a", container="postgres"}[5m])) * 1000)",
       nullptr},
      {"aggregation by before", R"(sum by (pod) (x{namespace="tenant-a"}))", nullptr},
      {"aggregation by after", R"(sum(x{namespace="tenant-a"}) by (pod))", nullptr},
      {"without and bool", R"(count without (a) (x{namespace="tenant-a"} > bool 1))", nullptr},
      {"group_left without parens", R"(x{namespace="tenant-a"} * on(pod) group_left y{namespace="tenant-a"})", nullptr},
      {"ignoring and group_right", R"(x{namespace="tenant-a"} / ignoring(job) group_right(a) y{namespace="tenant-a"})",
       nullptr},
      {"and/unless with on(target)",
       R"(sum(a{namespace="tenant-a", job="r"} and on(target) b{namespace="tenant-a"}) unless c{namespace="tenant-a"})",
       nullptr},
      {"mongodb precedence form",
       R"(sum(a{namespace="tenant-a"} and on(namespace,pod) (s{namespace="tenant-a"} == 2) * on(namespace,pod) group_left() k{namespace="tenant-a"}))",
       nullptr},
      {"regex on other labels", R"(x{namespace="tenant-a", legacy_op_type=~"insert|update|delete"})", nullptr},
      {"subquery offset at", R"(max_over_time(rate(x{namespace="tenant-a"}[5m])[30m:1m] offset 5m @ 100))", nullptr},
      {"functions with string args", R"x(label_replace(x{namespace="tenant-a"}, "dst", "$1", "src", "(.*)"))x",
       nullptr},
      {"numbers and constants", R"(vector(1) + Inf - NaN * 0x1f)", nullptr},
      {"metricsql or-filter, both pinned", R"(x{namespace="tenant-a", a="1" or namespace="tenant-a", b="2"})", nullptr},
      {"metricsql keep_metric_names", R"(rate(x{namespace="tenant-a"}[5m]) keep_metric_names)", nullptr},
      {"comment hides nothing", "x{namespace=\"tenant-a\"} # y{namespace=\"other\"}", nullptr},
      {"label named like a keyword", R"(x{namespace="tenant-a", on="1", by="2"})", nullptr},
      {"metric named like other keywords", R"(-offset{namespace="tenant-a"} - {__name__="by", namespace="tenant-a"})",
       nullptr},
      {"__name__ regex naming on", R"(-{__name__=~"on", namespace="tenant-a"})", nullptr},
      {"metric named like a function", R"(rate{namespace="tenant-a"})", nullptr},
      {"functions in any case", R"(SUM(Rate(x{namespace="tenant-a"}[5m])))", nullptr},
      {"metricsql functions", R"(range_median(median_over_time(x{namespace="tenant-a"}[5m])))", nullptr},
      {"on after and, ignoring after bool",
       R"((a{namespace="tenant-a"} and on(pod) b{namespace="tenant-a"}) == bool ignoring(x) c{namespace="tenant-a"})",
       nullptr},
      {"offset after a selector", R"(x{namespace="tenant-a"} offset -1m + y{namespace="tenant-a"} offset 5m)", nullptr},
      {"offset after a call and a range",
       R"(sum(rate(x{namespace="tenant-a"}[5m] offset 5m)) offset 1m + x{namespace="tenant-a"}[5m:1m] offset 1m)",
       nullptr},
      {"limit after an aggregation", R"(sum(x{namespace="tenant-a"}) by (pod) limit 2)", nullptr},
      {"sign after a join list", R"(x{namespace="tenant-a"} * on(pod) group_left() -y{namespace="tenant-a"})", nullptr},
      {"recording-rule name", R"(job:rate5m{namespace="tenant-a"} / :x:y{namespace="tenant-a"}[5m:1m])", nullptr},
      {"chained set operators",
       R"(a{namespace="tenant-a"} and b{namespace="tenant-a"} or 3 unless c{namespace="tenant-a"})", nullptr},
      {"@ forms", R"(x{namespace="tenant-a"} @ -1 + x{namespace="tenant-a"} @ 1.7e9 + x{namespace="tenant-a"} @ END())",
       nullptr},
      {"namespace twice, same value", R"(x{namespace="tenant-a", namespace="tenant-a"})", nullptr},

      // Refused.
      {"bare selector", "up", "selector up at offset 0 has no label matchers"},
      {"bare selector in a join", R"(x{namespace="tenant-a"} * on(pod) group_left() kube_pod_labels)",
       "selector kube_pod_labels"},
      {"missing matcher", R"(up{job="x"})", "lacks namespace=\"tenant-a\""},
      {"empty braces", "up{}", "lacks namespace"},
      {"nameless without namespace", R"({__name__="up"})", "lacks namespace"},
      {"other namespace", R"(up{namespace="tenant-b"})", "reads namespace \"tenant-b\", not \"tenant-a\""},
      {"second selector in other namespace", R"(a{namespace="tenant-a"} + b{namespace="tenant-b"})", "tenant-b"},
      {"regex namespace", R"(up{namespace=~"tenant-a"})", "matches namespace with =~"},
      {"regex namespace added", R"(up{namespace="tenant-a", namespace=~".*"})", "matches namespace with =~"},
      {"negative namespace", R"(up{namespace!="x"})", "matches namespace with !="},
      {"negative regex namespace", R"(up{namespace!~"x"})", "matches namespace with !~"},
      {"conflicting namespaces", R"(up{namespace="tenant-a", namespace="tenant-b"})", "tenant-b"},
      {"namespace prefix is not enough", R"(up{namespace="tenant-a-other"})", "tenant-a-other"},
      {"escaped value is compared unescaped", R"(up{namespace="tenant-a\"x"})", "tenant-a\"x"},
      {"metricsql or-filter escaping the namespace", R"(x{namespace="tenant-a" or job="y"})", "lacks namespace"},
      {"selector inside function", R"(rate(x[5m]))", "selector x"},
      {"selector inside label list position", R"(sum by (pod) (x))", "selector x"},
      {"keyword as a trailing metric name", R"(x{namespace="tenant-a"} or limit)", "selector limit"},
      {"offset without a duration", R"(x{namespace="tenant-a"} + offset)", "selector offset"},
      {"on without a list", R"(x{namespace="tenant-a"} * on)", "selector on"},
      {"with template reference inside braces", R"(x{namespace="tenant-a", s})", "malformed label matcher"},
      {"matcher operator not a matcher", R"(x{namespace>"tenant-a"})", "unknown matcher operator >"},
      {"unterminated selector", R"(x{namespace="tenant-a")", "unterminated selector"},
      {"stray closing brace", R"(} x{namespace="tenant-a"})", "unbalanced '}'"},
      {"junk in range", R"(rate(x{namespace="tenant-a"}[y{namespace="b"}]))", "in a range"},
      {"junk in label list", R"(sum by (x{namespace="b"}) (y{namespace="tenant-a"}))", "in the label list"},
      {"unreadable", "x{namespace=\"tenant-a\"} ; drop", "cannot read the query"},
      // Constructs the check cannot see through: WITH templates (VictoriaMetrics expands this
      // one to secret_metric - 0, with no namespace at all), unknown calls, and modifiers out
      // of their place, whose "label lists" would be expressions.
      {"with template hiding a bare selector", "sum(WITH (on(bool) = bool - 0) on(secret_metric))", "WITH"},
      {"with in capitals", R"(WITH (f(x) = x) f(up{namespace="tenant-a"}))", "WITH"},
      {"with nested in a call", R"(rate(with (t = secret) t[5m]))", "WITH"},
      {"unknown function", R"(my_template(up{namespace="tenant-a"}))", "unknown function my_template"},
      {"on where no operator is", "on(secret_metric)", "unknown function on"},
      // After a sign there is no left operand: VictoriaMetrics reads a call of on (and 1.79.5
      // exits on it), not a label list.
      {"on after a unary minus", "sum(-on(secret_metric))", "unknown function on"},
      {"ignoring after a unary plus", "abs(+ignoring(secret_metric))", "unknown function ignoring"},
      {"on after a comma and a sign", R"(clamp(x{namespace="tenant-a"}, -on(secret_metric), 1))",
       "unknown function on"},
      {"on after two operators", R"(x{namespace="tenant-a"} * -on(secret_metric))", "unknown function on"},
      {"bool after a comparison without a left operand", "sum(== bool on(secret_metric))", "selector bool"},
      {"by not after an aggregation", "rate(by(secret_metric))", "unknown function by"},
      {"by after a plain group", R"((x{namespace="tenant-a"}) by (secret_metric))", "unknown function by"},
      {"ignoring at the start of an argument", "abs(ignoring(secret_metric))", "unknown function ignoring"},
      {"group_left without on", R"(x{namespace="tenant-a"} * group_left(secret_metric))",
       "unknown function group_left"},
      {"bool not after a comparison", "sum(bool - secret_metric)", "selector bool"},
      {"bool after an arithmetic operator", R"(x{namespace="tenant-a"} + bool secret_metric)", "selector bool"},
      // Metrics named like the modifiers on, ignoring and bool: VictoriaMetrics prints what it
      // parsed and parses that again, and its print of `-on{...}` (or `x - (on{...})`) is
      // `0 - on{...}`, where on is a modifier; 1.79.5 panics and exits on it. inf and nan
      // come back as numbers. Refused whether named, quoted or matched by __name__.
      {"metric named on after a sign", R"(-on{namespace="tenant-a"})", "named like"},
      {"metric named ignoring after an operator", R"(x{namespace="tenant-a"} - (ignoring{namespace="tenant-a"}))",
       "named like"},
      {"metric named bool in capitals", R"(sum(-Bool{namespace="tenant-a"}))", "named like"},
      {"metric named on anywhere", R"(sum(on{namespace="tenant-a"}))", "named like"},
      {"metric named on by __name__", R"(-{__name__="on", namespace="tenant-a"})", "named like"},
      {"metric named BOOL by __name__", R"(x{namespace="tenant-a"} - {namespace="tenant-a",__name__="BOOL"})",
       "named like"},
      {"metric named inf by __name__", R"(-{__name__="inf", namespace="tenant-a"})", "named like"},
      {"metric named on, quoted", R"({"on", namespace="tenant-a"})", "named like"},
      // And after an on/ignoring list VictoriaMetrics reads group_left/group_right as modifiers:
      // the parentheses around the operand are gone from its print.
      {"metric named group_right after an ignoring list",
       R"(x{namespace="tenant-a"} or ignoring(pod) (group_right{namespace="tenant-a"}))", "named like"},
      {"metric named group_left by __name__",
       R"(x{namespace="tenant-a"} and on(pod) ({__name__="Group_Left", namespace="tenant-a"}))", "named like"},
      // offset and limit modify what stands before them; with nothing there the word is a metric
      // name to VictoriaMetrics (`- offset -1m` reads every namespace's series named offset).
      {"offset with nothing to modify", "- offset -1m", "selector offset"},
      {"offset at the start", " offset -sum (-0)", "selector offset"},
      {"offset after an operator", R"(x{namespace="tenant-a"} * offset -1m)", "selector offset"},
      {"limit with nothing to limit", "- limit 1", "selector limit"},
      {"keep_metric_names after a join's list",
       R"(x{namespace="tenant-a"} unless on(pod) keep_metric_names if y{namespace="tenant-a"})",
       "selector keep_metric_names"},
      // A join's label list ends no operand: a sign after it starts the right operand, and what
      // follows the sign is a call, not a second list (1.79.5 exits on `and on() -ignoring(y)`).
      {"sign after an on list", R"(x{namespace="tenant-a"} and on() -ignoring(secret_metric))",
       "unknown function ignoring"},
      {"sign after an ignoring list", R"(x{namespace="tenant-a"} > ignoring() -ON(secret_metric))",
       "unknown function ON"},
      {"sign after a group_left list", R"(x{namespace="tenant-a"} * on(pod) group_left() -on(secret_metric))",
       "unknown function on"},
      // Metric names may hold colons (job:rate5m), so outside a range a colon is part of a name
      // to VictoriaMetrics: `:1m` reads every namespace's series named :1m.
      {"colon outside a range", ":1m", "':' at offset 0"},
      {"colon after an operator", R"(x{namespace="tenant-a"} + :5)", "':' at offset"},
      // A binary keyword right after another has no left operand: it is a metric name there.
      {"binary keyword after a binary keyword", R"(3 and unless unless y{namespace="tenant-a"})", "selector unless"},
      {"or after or", R"(x{namespace="tenant-a"} or OR or y{namespace="tenant-a"})", "selector OR"},
      // @ takes a timestamp, start() or end(). VictoriaMetrics takes an expression too, but
      // prints it back without its parentheses (1.79.5 exits on this one).
      {"@ with an expression", R"(x{namespace="tenant-a"}[5i] @ (x{namespace="tenant-a"}[5i] @ end()) / 9)",
       "@ at offset"},
      {"@ with a call", R"(x{namespace="tenant-a"} @ time())", "@ at offset"},
      {"@ with nothing", R"(x{namespace="tenant-a"} @)", "@ at offset"},
      {"unbalanced open parenthesis", R"(sum(x{namespace="tenant-a"})", "unbalanced '('"},
      {"unbalanced close parenthesis", R"(x{namespace="tenant-a"}))", "unbalanced ')'"},
      {"empty", "  ", "the query is empty"},
  };
  for (const auto& c : cases) {
    const std::string why = namespace_scope_violation(c.query, "tenant-a");
    if (c.refusal_part == nullptr) {
      EXPECT_EQ(why, "") << c.name;
    } else {
      EXPECT_NE(why.find(c.refusal_part), std::string::npos) << c.name << ": got \"" << why << "\"";
    }
  }
}

TEST(NamespaceScope, NoNamespaceMeansNoQuery) {
  EXPECT_EQ(namespace_scope_violation(R"(up{namespace=""})", ""), "no namespace to scope the query to");
}

}  // namespace
}  // namespace dha::tenancy
