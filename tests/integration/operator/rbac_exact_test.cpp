// The operator on a real kube-apiserver, authenticated as its ServiceAccount and bound to
// exactly the RBAC the chart renders for the plugins it loads: a scale up and down with leader
// election, events and status. Any 403 fails the test (OperatorWorld's teardown), and so does a
// grant this run never used unless a code path this scenario cannot reach needs it (below).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <map>

#include "operator_world.hpp"

namespace dha::optest {
namespace {

using RbacExactTest = OperatorWorld;

// Grants the chart gives for a path a scale up and down does not take, each with that path.
const std::map<Grant, std::string>& grants_for_paths_not_taken_here() {
  static const std::map<Grant, std::string> reasons{
      {{"", "events", "patch"}, "an identical event repeating bumps its count by patch"},
      {{"", "namespaces", "get"}, "a namespace is read directly until its informer has synced"},
      {{"cozystack.io", "workloadmonitors", "get"}, "read directly until the informer has synced"},
      {{"apps.cozystack.io", "postgreses", "get"}, "read directly until the informer has synced"},
      {{"", "resourcequotas", "list"}, "listed directly until the informer has synced"},
  };
  return reasons;
}

std::string text_of(const Grant& g) { return g.verb + " " + g.resource + (g.group.empty() ? "" : "." + g.group); }

TEST_F(RbacExactTest, TheChartsRbacIsEnoughForAScaleUpAndDownWithLeaderElection) {
  if (cluster_->backend() != testing::KubeBackend::real) GTEST_SKIP() << "RBAC needs the real kube-apiserver";
  ASSERT_FALSE(chart_grants_.empty()) << "the chart granted the operator nothing";
  create_postgres(2);
  create_workload_monitor(2);
  auto_converge(true);
  set_load(250);  // -> 4
  create_dha({.down_window = 0});
  start_operator('a', {{"--leader-election-namespace", kReleaseNamespace}}, {"--leader-elect"});
  ASSERT_TRUE(eventually([&] { return replicas() == 4; }, 60s)) << "no scale up to 4";
  set_load(0);
  ASSERT_TRUE(eventually([&] { return replicas() == 2; }, 60s)) << "no scale down to the floor";
  ASSERT_TRUE(eventually([&] { return status_int("currentReplicas") == 2; }, 20s));
  EXPECT_FALSE(events("Scaled").empty());
  // A leader that has not renewed yet has used only half of what leading needs: the scenario
  // can be over within the first retry period, so wait for a renewal (get + update) too.
  ASSERT_TRUE(eventually(
      [&] {
        for (const auto& e : cluster_->audit())
          if (e.username == kOperatorA && e.method == "PUT" && e.status < 400 &&
              e.path.find("/leases/") != std::string::npos)
            return true;
        return false;
      },
      30s))
      << "the leader never renewed its Lease";

  std::set<Grant> used;
  for (const auto& e : cluster_->audit())
    if (e.username == kOperatorA && e.status < 400) used.insert(grant_of(e));
  std::vector<std::string> unjustified;
  for (const auto& g : chart_grants_) {
    if (used.count(g) != 0) continue;
    const auto& reasons = grants_for_paths_not_taken_here();
    if (auto it = reasons.find(g); it != reasons.end()) {
      std::cout << "granted, not used here: " << text_of(g) << " (" << it->second << ")\n";
      continue;
    }
    unjustified.push_back(text_of(g));
  }
  EXPECT_TRUE(unjustified.empty()) << "the chart grants what no code path here used and nothing justifies:\n  "
                                   << fmt::format("{}", fmt::join(unjustified, "\n  "));
  for (const auto& g : used)
    if (chart_grants_.count(g) == 0 && g.group.rfind("authorization", 0) != 0 &&
        g.group.rfind("authentication", 0) != 0)
      std::cout << "used without a grant of its own (allowed by a built-in role): " << text_of(g) << "\n";
}

// The check above can fail: without the chart's patch on Postgres the scale-up is refused,
// and the refusal is found in the audit log.
TEST_F(RbacExactTest, AVerbTheChartLacksIsFound) {
  if (cluster_->backend() != testing::KubeBackend::real) GTEST_SKIP() << "RBAC needs the real kube-apiserver";
  const auto taken = cluster_->request(
      "admin", "PATCH", "/apis/rbac.authorization.k8s.io/v1/clusterroles/autoscaling.cozystack.io:db-autoscaler",
      R"([{"op":"test","path":"/rules/2/apiGroups/0","value":"apps.cozystack.io"},)"
      R"({"op":"replace","path":"/rules/2/verbs","value":["get","list","watch"]}])",
      "application/json-patch+json");
  ASSERT_EQ(taken.status, 200) << taken.body;
  create_postgres(2);
  create_workload_monitor(2);
  set_load(250);
  create_dha({});
  start_operator();
  ASSERT_TRUE(eventually([&] { return !operator_403s().empty(); }, 30s)) << "no 403 seen";
  expect_403s_ = true;
  const auto refused = operator_403s();
  EXPECT_NE(refused[0].find("patch postgreses.apps.cozystack.io"), std::string::npos) << refused[0];
  EXPECT_EQ(replicas(), 2);
}

}  // namespace
}  // namespace dha::optest
