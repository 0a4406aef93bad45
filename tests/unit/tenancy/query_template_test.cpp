#include <gtest/gtest.h>

#include <string>

#include "tenancy/label_escape.hpp"
#include "tenancy/namespace_scope.hpp"
#include "tenancy/query_template.hpp"

namespace dha::tenancy {
namespace {

TEST(LabelEscape, EscapesWhatCouldEndTheString) {
  EXPECT_EQ(escape_label_value("plain-name"), "plain-name");
  EXPECT_EQ(escape_label_value(R"(a"b)"), R"(a\"b)");
  EXPECT_EQ(escape_label_value(R"(a\b)"), R"(a\\b)");
  EXPECT_EQ(escape_label_value("a\nb"), R"(a\nb)");
  EXPECT_EQ(escape_label_value(R"(\")"), R"(\\\")");
}

const TargetLabels kTarget{"tenant-a", "db", "postgres-db"};

TEST(QueryTemplate, SubstitutesEveryPlaceholder) {
  const ScopedQuery q = render_scoped_query(
      R"(sum(x{namespace="${namespace}"} * on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", app="${name}", instance="${release}"}))",
      kTarget);
  ASSERT_TRUE(q.ok()) << q.refusal;
  EXPECT_EQ(
      q.query,
      R"(sum(x{namespace="tenant-a"} * on(namespace,pod) group_left() kube_pod_labels{namespace="tenant-a", app="db", instance="postgres-db"}))");
}

TEST(QueryTemplate, RefusalsAreSpecific) {
  const struct {
    const char* name;
    const char* tmpl;
    const char* refusal_part;
  } cases[] = {
      {"unknown placeholder", R"(x{namespace="${namespace}", a="${tenant}"})", "unknown placeholder ${tenant}"},
      {"placeholder outside quotes", R"(x{namespace="${namespace}"} * ${name})", "not inside a double-quoted string"},
      {"placeholder in single quotes", R"(x{namespace='${namespace}'})", "not inside a double-quoted string"},
      {"placeholder in a raw string", "x{namespace=`${namespace}`}", "not inside a double-quoted string"},
      {"unterminated placeholder", R"(x{namespace="${namespace"})", "unterminated placeholder"},
      {"template without namespace", R"(x{app="${name}"})", "lacks namespace=\"tenant-a\""},
      {"template with a fixed namespace", R"(x{namespace="kube-system"})", "reads namespace \"kube-system\""},
      {"template reading everything", R"(x{namespace="${namespace}"} or y)", "selector y"},
      {"empty", "", "the query is empty"},
  };
  for (const auto& c : cases) {
    const ScopedQuery q = render_scoped_query(c.tmpl, kTarget);
    EXPECT_FALSE(q.ok()) << c.name;
    EXPECT_TRUE(q.query.empty()) << c.name;
    EXPECT_NE(q.refusal.find(c.refusal_part), std::string::npos) << c.name << ": got \"" << q.refusal << "\"";
  }
}

// A tenant controls its object names; none of these may widen a query beyond its namespace.
TEST(QueryTemplate, InjectionThroughNamesStaysInsideTheString) {
  const char* tmpl = R"(sum(x{namespace="${namespace}", app="${name}"}))";
  const char* names[] = {
      R"(x"} or vector(1) or foo{a=")",
      R"(x"} or up{namespace="tenant-b)",
      R"(x\"} or up{a=")",
      "x\"}\n# \n or up{a=\"",
      R"(x\)",
      R"(x\\"} or up{a=")",
      "x` or up or `",
      "x' or up or '",
  };
  for (const char* name : names) {
    const ScopedQuery q = render_scoped_query(tmpl, TargetLabels{"tenant-a", name, "r"});
    ASSERT_TRUE(q.ok()) << name << ": " << q.refusal;
    EXPECT_EQ(namespace_scope_violation(q.query, "tenant-a"), "") << q.query;
    // The whole name is one label value: the query still has exactly one selector's worth of
    // structure, ending where the template ended.
    EXPECT_EQ(q.query.substr(q.query.size() - 3), "\"})") << q.query;
  }
}

TEST(QueryTemplate, InjectionThroughTheNamespaceIsRefusedOrContained) {
  // A namespace value that tries to break out can only ever be compared, escaped, against itself.
  const TargetLabels evil{R"(a"} or up{namespace="b)", "db", "r"};
  const ScopedQuery q = render_scoped_query(R"(x{namespace="${namespace}"})", evil);
  ASSERT_TRUE(q.ok()) << q.refusal;
  EXPECT_EQ(q.query, R"(x{namespace="a\"} or up{namespace=\"b"})");
}

}  // namespace
}  // namespace dha::tenancy
