// The wording a tenant reads in kubectl get, describe and kubectl dha.

#include <gtest/gtest.h>

#include "dha/model/status_display.hpp"

namespace dha::model {
namespace {

MetricSpec metric(MetricType type, const std::string& target) {
  MetricSpec m;
  m.type = type;
  m.target = *parse_quantity(target);
  return m;
}

struct MetricRow {
  const char* name;
  MetricSpec spec;
  std::optional<std::string> observed;
  const char* shown;
};

class MetricDisplay : public ::testing::TestWithParam<MetricRow> {};

TEST_P(MetricDisplay, ReadsLikeHpaTargets) {
  const auto& row = GetParam();
  CurrentMetric observed{std::string(to_string(row.spec.type)), row.observed.value_or("")};
  EXPECT_EQ(metric_display(row.spec, row.observed ? &observed : nullptr), row.shown);
}

MetricSpec utilization(std::int32_t percent) {
  MetricSpec m;
  m.type = MetricType::ReadCPUUtilization;
  m.average_utilization = percent;
  return m;
}

INSTANTIATE_TEST_SUITE_P(Table, MetricDisplay,
                         ::testing::Values(MetricRow{"connections", metric(MetricType::ReadConnections, "150"), "83",
                                                     "83/150 (ReadConnections)"},
                                           MetricRow{"cpu_quantity", metric(MetricType::ReadCPUUtilization, "250m"),
                                                     "210m", "210m/250m (ReadCPUUtilization)"},
                                           MetricRow{"cpu_percent", utilization(70), "65",
                                                     "65%/70% (ReadCPUUtilization)"},
                                           MetricRow{"not_observed", metric(MetricType::ReadConnections, "150"),
                                                     std::nullopt, "<unknown>/150 (ReadConnections)"},
                                           MetricRow{"percent_not_observed", utilization(70), std::nullopt,
                                                     "<unknown>/70% (ReadCPUUtilization)"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(StatusDisplay, EveryMetricInSpecOrderMatchedByType) {
  DhaSpec spec;
  spec.metrics = {metric(MetricType::ReadConnections, "150"), metric(MetricType::ReadCPUUtilization, "1")};
  EXPECT_EQ(metrics_display(spec, {{"ReadCPUUtilization", "500m"}}),
            "<unknown>/150 (ReadConnections), 500m/1 (ReadCPUUtilization)");
  EXPECT_EQ(target_display(TargetRef{"postgresql.cnpg.io", "Cluster", "pg"}), "Cluster/pg");
}

LastDecision decision(DecisionKind kind, const std::string& reason, const std::string& message,
                      std::vector<TraceEntry> trace, std::int32_t desired) {
  LastDecision d;
  d.kind = kind;
  d.reason = reason;
  d.message = message;
  d.trace = std::move(trace);
  d.desired_replicas = desired;
  return d;
}

TEST(StatusDisplay, SummaryNamesTheGateThatDecided) {
  const std::vector<TraceEntry> trace = {
      {"FailSafe", 4, 4, "Pass", "raw recommendation 4"},
      {"LagBrake", 4, 3, "ReplicationLag", "replication lag 45s > 30s with writes active (45s > 30s)"},
      {"Bounds", 3, 3, "Pass", "within bounds"}};
  const auto frozen =
      decision(DecisionKind::Freeze, "ReplicationLag", "replication lag 45s > 30s with writes active", trace, 3);
  EXPECT_EQ(decision_summary(frozen, 3),
            "frozen at 3 by LagBrake (ReplicationLag): replication lag 45s > 30s with writes active (45s > 30s)");
  ASSERT_NE(deciding_gate(frozen), nullptr);
  EXPECT_EQ(deciding_gate(frozen)->gate, "LagBrake");
  EXPECT_EQ(
      decision_summary(
          decision(DecisionKind::Scale, "Ready", "scale 3 -> 4 (ReadConnections 210/150 per read replica)", {}, 4), 3),
      "scale 3 -> 4 (ReadConnections 210/150 per read replica)");
  EXPECT_EQ(decision_summary(decision(DecisionKind::NoChange, "Ready", "at target", {}, 3), 3),
            "no change at 3: at target");
  EXPECT_EQ(
      decision_summary(decision(DecisionKind::NoChange, "Ready", "no change at 3 (ReadConnections 90/100)", {}, 3), 3),
      "no change at 3 (ReadConnections 90/100)");
  EXPECT_EQ(deciding_gate(decision(DecisionKind::NoChange, "Ready", "", {{"FailSafe", 3, 3, "Pass", ""}}, 3)), nullptr);
}

TEST(StatusDisplay, TraceInWords) {
  EXPECT_EQ(trace_entry_words({"Stabilization", 2, 3, "StabilizationWindow", "waiting for the 1800s window"}),
            "Stabilization: 2 -> 3, StabilizationWindow: waiting for the 1800s window");
  EXPECT_EQ(trace_entry_words({"Bounds", 3, 3, "Pass", "within bounds"}), "Bounds: passed 3 (within bounds)");
  EXPECT_EQ(trace_entry_words({"Convergence", 4, 4, "Converged", "converged at 3"}),
            "Convergence: passed 4 (converged at 3)");
  EXPECT_EQ(trace_entry_words({"Convergence", 4, 4, "ScaleInFlight", "waiting"}),
            "Convergence: kept 4, ScaleInFlight: waiting");
  EXPECT_FALSE(gate_acted({"Bounds", 3, 3, "Pass", ""}));
  EXPECT_TRUE(gate_acted({"Bounds", 7, 6, "Pass", ""}));
}

}  // namespace
}  // namespace dha::model
