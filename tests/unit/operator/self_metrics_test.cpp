#include "operator/self_metrics.hpp"

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

}  // namespace
}  // namespace dha::op
