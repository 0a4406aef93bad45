#include "host/self_metrics.hpp"

#include <gtest/gtest.h>

namespace dha::op {
namespace {

TEST(SelfMetrics, GaugesPerDhaAreExportedAndDeletedWithTheDha) {
  telemetry::Registry registry;
  SelfMetrics m(registry);
  m.set_dha("t", "a", {3, 4, true, false});
  m.set_dha("t", "b", {2, 2, false, true});
  m.set_metric("t", "a", "ReadConnections", 210, 150);
  m.count_decision("t", "a", "Scale", "Ready");
  const std::string text = registry.expose();
  EXPECT_NE(text.find("db_autoscaler_current_replicas{namespace=\"t\",name=\"a\"} 3"), std::string::npos) << text;
  EXPECT_NE(text.find("db_autoscaler_desired_replicas{namespace=\"t\",name=\"a\"} 4"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_scaling_limited{namespace=\"t\",name=\"a\"} 1"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_frozen{namespace=\"t\",name=\"b\"} 1"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_metric_value{namespace=\"t\",name=\"a\",type=\"ReadConnections\"} 210"),
            std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_leader 0"), std::string::npos);

  m.forget("t", "a");
  const std::string after = registry.expose();
  EXPECT_EQ(after.find("name=\"a\""), std::string::npos) << after;
  EXPECT_NE(after.find("db_autoscaler_frozen{namespace=\"t\",name=\"b\"} 1"), std::string::npos);
}

// clear_metrics drops exactly one DHA's metric series (every type it had), nothing of another
// DHA and none of its own gauges; forget drops everything of that DHA only.
TEST(SelfMetrics, ClearMetricsDropsOneDhasMetricSeriesOnly) {
  telemetry::Registry registry;
  SelfMetrics m(registry);
  m.set_dha("t", "a", {3, 4, false, false});
  m.set_metric("t", "a", "ReadConnections", 210, 150);
  m.set_metric("t", "a", "ReadCPUUtilization", 300, 500);
  m.set_metric("t", "ab", "ReadConnections", 1, 2);
  m.set_metric("u", "a", "ReadConnections", 5, 6);
  m.clear_metrics("t", "a");
  m.clear_metrics("t", "never-seen");
  std::string text = registry.expose();
  EXPECT_EQ(text.find(R"(db_autoscaler_metric_value{namespace="t",name="a",)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(db_autoscaler_metric_target{namespace="t",name="a",)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(db_autoscaler_metric_value{namespace="t",name="ab",type="ReadConnections"} 1)"),
            std::string::npos);
  EXPECT_NE(text.find(R"(db_autoscaler_metric_value{namespace="u",name="a",type="ReadConnections"} 5)"),
            std::string::npos);
  EXPECT_NE(text.find(R"(db_autoscaler_current_replicas{namespace="t",name="a"} 3)"), std::string::npos);

  m.set_metric("t", "a", "ReadConnections", 7, 8);  // a later reconcile sets it again
  m.count_decision("t", "a", "Scale", "Ready");
  m.forget("t", "a");
  text = registry.expose();
  EXPECT_EQ(text.find(R"(namespace="t",name="a")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(db_autoscaler_metric_value{namespace="t",name="ab",type="ReadConnections"} 1)"),
            std::string::npos);
}

TEST(SelfMetrics, ReconcileCounterAndHistogram) {
  telemetry::Registry registry;
  SelfMetrics m(registry);
  m.reconcile_finished("success", 0.01);
  m.reconcile_finished("success", 0.02);
  m.reconcile_finished("error", 0.5);
  m.set_leader(true);
  const std::string text = registry.expose();
  EXPECT_NE(text.find("db_autoscaler_reconcile_total{result=\"success\"} 2"), std::string::npos) << text;
  EXPECT_NE(text.find("db_autoscaler_reconcile_total{result=\"error\"} 1"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_reconcile_duration_seconds_count 3"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_leader 1"), std::string::npos);
}

// client-go's leader election gauge, one series per Lease: no series without leader election.
TEST(SelfMetrics, LeaderElectionMasterStatusPerLease) {
  telemetry::Registry registry;
  SelfMetrics m(registry);
  EXPECT_EQ(registry.expose().find("leader_election_master_status{"), std::string::npos);
  m.set_lease_held("dha-lease", false);
  EXPECT_NE(registry.expose().find("leader_election_master_status{name=\"dha-lease\"} 0"), std::string::npos)
      << registry.expose();
  m.set_lease_held("dha-lease", true);
  m.set_lease_held("dha-lease-shard-1", false);
  const std::string text = registry.expose();
  EXPECT_NE(text.find("leader_election_master_status{name=\"dha-lease\"} 1"), std::string::npos) << text;
  EXPECT_NE(text.find("leader_election_master_status{name=\"dha-lease-shard-1\"} 0"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE leader_election_master_status gauge"), std::string::npos) << text;
}

}  // namespace
}  // namespace dha::op
