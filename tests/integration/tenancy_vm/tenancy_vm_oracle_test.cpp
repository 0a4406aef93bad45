// The namespace check's verdicts, judged by VictoriaMetrics itself rather than by the check's own
// lexer: whatever the check accepts for tenant-a must read tenant-a's series only, as the real
// server parses and evaluates it. The oracle: the same query on a server holding tenant-a's series
// alone and on one that also holds tenant-b's and unlabelled ones must give the same answer.
// A query the server cannot parse, or one that brings it down, fails too.

#include "dha/testing/victoria_metrics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "tenancy/namespace_scope.hpp"

namespace dha {
namespace {

constexpr const char* kTenantSeries =
    "x{namespace=\"tenant-a\",pod=\"p1\"} 1\n"
    "x{namespace=\"tenant-a\",pod=\"p2\"} 2\n"
    "y{namespace=\"tenant-a\",pod=\"p1\"} 3\n";
constexpr const char* kOtherSeries =
    "x{namespace=\"tenant-b\",pod=\"p1\"} 500\n"
    "y{namespace=\"tenant-b\",pod=\"p1\"} 700\n"
    "secret_metric{pod=\"p1\"} 1000000\n"
    "on{pod=\"p1\"} 20000\n"
    "ignoring{pod=\"p1\"} 30000\n";

std::string text_of(std::vector<testing::VictoriaMetrics::Sample> samples) {
  std::vector<std::string> lines;
  for (const auto& s : samples) {
    std::ostringstream line;
    for (const auto& [k, v] : s.labels) line << k << "=" << v << ",";
    line << " " << s.value;
    lines.push_back(line.str());
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Queries the check is asked about: what the adapters write, and what a template or a value
// could smuggle in. Accepted or refused, each is judged by what the servers answer.
const std::vector<std::string>& corpus() {
  static const std::vector<std::string> queries{
      R"(sum(x{namespace="tenant-a"}))",
      R"(sum(x{namespace="tenant-a"} * on(namespace,pod) group_left() y{namespace="tenant-a"}))",
      R"(x{namespace="tenant-a"} - on(pod) y{namespace="tenant-a"})",
      R"((x{namespace="tenant-a"}) + ignoring(namespace) y{namespace="tenant-a"})",
      R"(x{namespace="tenant-a"} > bool on(pod) y{namespace="tenant-a"})",
      R"(sum(x{namespace="tenant-a"} and on(pod) y{namespace="tenant-a"}))",
      R"(-x{namespace="tenant-a"})",
      R"(sum(-x{namespace="tenant-a"}))",
      R"(vector(1) + 2)",
      // Signs in front of a modifier word: no left operand, so on/ignoring name a call (or a
      // metric) to the server, not a label list.
      "sum(-on(secret_metric))",
      "sum(+on(secret_metric))",
      "abs(-ignoring(secret_metric))",
      R"(x{namespace="tenant-a"} * -on(secret_metric))",
      R"(clamp(x{namespace="tenant-a"}, -on(secret_metric), 1))",
      "sum(-on)",
      R"(x{namespace="tenant-a"} + -ignoring)",
      // Bare and foreign selectors.
      "secret_metric",
      R"(x{namespace="tenant-b"})",
      R"(sum(x{namespace="tenant-a"}) + on)",
  };
  return queries;
}

TEST(TenancyVmOracle, WhatTheCheckAcceptsReadsTheTenantsSeriesOnlyAsVictoriaMetricsReadsIt) {
  testing::VictoriaMetrics tenant_only;
  testing::VictoriaMetrics everyone;
  tenant_only.import_prometheus(kTenantSeries);
  everyone.import_prometheus(std::string(kTenantSeries) + kOtherSeries);
  ASSERT_TRUE(tenant_only.wait_for_result(R"(y{namespace="tenant-a"})", std::chrono::seconds(20)));
  ASSERT_TRUE(everyone.wait_for_result("ignoring", std::chrono::seconds(20)));
  int accepted = 0;
  for (const auto& q : corpus()) {
    const std::string refusal = tenancy::namespace_scope_violation(q, "tenant-a");
    if (!refusal.empty()) continue;
    ++accepted;
    std::string alone, together;
    try {
      alone = text_of(tenant_only.query_vector(q));
      together = text_of(everyone.query_vector(q));
    } catch (const std::exception& e) {
      ADD_FAILURE() << "accepted, but VictoriaMetrics did not answer " << q << ": " << e.what();
      continue;
    }
    EXPECT_EQ(alone, together) << "accepted, but reads series outside tenant-a: " << q;
  }
  EXPECT_GE(accepted, 9) << "the adapters' shapes must stay accepted";
  // Both servers are still up: no accepted query brought one down.
  EXPECT_NO_THROW(tenant_only.query_vector("vector(1)"));
  EXPECT_NO_THROW(everyone.query_vector("vector(1)"));
}

}  // namespace
}  // namespace dha
