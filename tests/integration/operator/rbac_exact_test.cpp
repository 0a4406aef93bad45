// The operator on a real kube-apiserver, authenticated as its ServiceAccount and bound to
// exactly the RBAC the chart renders: a scale up and down with leader election, events and
// status. Any 403 fails the test (OperatorWorld's teardown); what the chart grants and this
// run never used is printed, so a grant nobody needs shows up.
#include <iostream>

#include "operator_world.hpp"

namespace dha::optest {
namespace {

using RbacExactTest = OperatorWorld;

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

  std::set<Grant> used;
  for (const auto& e : cluster_->audit())
    if (e.username == kOperatorA && e.status < 400) used.insert(grant_of(e));
  std::size_t unused = 0;
  for (const auto& g : chart_grants_) {
    if (used.count(g) != 0) continue;
    if (unused++ == 0) std::cout << "granted by the chart, not used in this scenario:\n";
    std::cout << "  " << g.verb << " " << g.resource << (g.group.empty() ? "" : "." + g.group) << "\n";
  }
  for (const auto& g : used)
    if (chart_grants_.count(g) == 0 && g.group.rfind("authorization", 0) != 0 &&
        g.group.rfind("authentication", 0) != 0)
      std::cout << "used without a grant of its own (allowed by a built-in role): " << g.verb << " " << g.resource
                << (g.group.empty() ? "" : "." + g.group) << "\n";
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
