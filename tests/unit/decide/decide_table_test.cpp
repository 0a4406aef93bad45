// Table of decisions: every reason and message, each precedence rule, window and deadline edges.
// Baseline: min 2, max 6, target 150 connections per reader, current 3 (1 primary), converged.
// Total load T gives raw = ceil(T / 150) + 1 while current is 3.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "decide_test_support.hpp"

namespace dha::testing {
namespace {

using model::DecisionKind;

struct Row {
  const char* name;
  std::function<void(DecideCase&)> setup;
  DecisionKind kind;
  std::int32_t desired;
  const char* reason;
  const char* message;         // exact top-level message; nullptr: not checked
  const char* limited_reason;  // ScalingLimited reason; "Ready" when not limited
};

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::vector<Row> rows() {
  return {
      // --- the formula and plain outcomes
      {"worked_example_scales_up", [](DecideCase&) {}, DecisionKind::Scale, 4, "Ready",
       "scale 3 -> 4 (ReadConnections 210/150 per read replica)", "Ready"},
      {"on_target_no_change", [](DecideCase& c) { c.load(300); }, DecisionKind::NoChange, 3, "Ready",
       "no change at 3 (ReadConnections 150/150 per read replica)", "Ready"},
      {"low_load_scales_down_one_step", [](DecideCase& c) { c.load(0); }, DecisionKind::Scale, 2, "Ready", nullptr,
       "Ready"},
      // --- fail-safe
      {"metric_null_is_unavailable",
       [](DecideCase& c) {
         c.obs.metrics = {{"ReadConnections", std::nullopt}};
       },
       DecisionKind::Freeze, 3, "MetricUnavailable", "metric unavailable; refusing to scale blind", "Ready"},
      {"metric_missing_is_unavailable", [](DecideCase& c) { c.obs.metrics.clear(); }, DecisionKind::Freeze, 3,
       "MetricUnavailable", "metric unavailable; refusing to scale blind", "Ready"},
      {"metric_of_other_type_is_unavailable",
       [](DecideCase& c) {
         c.obs.metrics = {{"ReadCPUUtilization", 1.0}};
       },
       DecisionKind::Freeze, 3, "MetricUnavailable", nullptr, "Ready"},
      {"nan_is_unavailable_not_scale_down", [](DecideCase& c) { c.load(kNaN); }, DecisionKind::Freeze, 3,
       "MetricUnavailable", nullptr, "Ready"},
      {"plus_inf_is_unavailable", [](DecideCase& c) { c.load(kInf); }, DecisionKind::Freeze, 3, "MetricUnavailable",
       nullptr, "Ready"},
      {"minus_inf_is_unavailable", [](DecideCase& c) { c.load(-kInf); }, DecisionKind::Freeze, 3, "MetricUnavailable",
       nullptr, "Ready"},
      {"huge_finite_load_saturates_up", [](DecideCase& c) { c.load(1e300); }, DecisionKind::Scale, 4, "AtLimit",
       "held at maxReplicas 6", "AtLimit"},
      {"zero_target_is_invalid",
       [](DecideCase& c) {
         c.spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
             "metrics":[{"type":"ReadConnections","target":{"averageValue":"0"}}]})");
       },
       DecisionKind::Freeze, 3, "InvalidMetricTarget", "metric ReadConnections has a non-positive target", "Ready"},
      {"negative_cpu_target_is_invalid_even_when_metrics_missing",
       [](DecideCase& c) {
         c.spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
             "metrics":[{"type":"ReadCPUUtilization","target":{"averageValue":"-250m"}}]})");
         c.obs.metrics.clear();
       },
       DecisionKind::Freeze, 3, "InvalidMetricTarget", "metric ReadCPUUtilization has a non-positive target", "Ready"},
      // --- quorum vs quota
      {"quorum_floor_above_quota_freezes",
       [](DecideCase& c) {
         c.obs.quorum_floor = 3;
         c.obs.quota_max_replicas = 2;
       },
       DecisionKind::Freeze, 3, "QuorumExceedsQuota", "quorum floor 3 exceeds tenant quota ceiling 2",
       "QuorumExceedsQuota"},
      {"respect_quorum_false_makes_floor_one",
       [](DecideCase& c) {
         c.spec.constraints.respect_quorum = false;
         c.obs.quorum_floor = 5;
         c.obs.quota_max_replicas = 4;
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      // --- single-flight, convergence, rollback
      {"in_flight_waits",
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 100;
       },
       DecisionKind::Freeze, 3, "ScaleInFlight", "scale in flight; waiting for convergence", "Ready"},
      {"deadline_edge_age_equal_still_waits",
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 900;
         c.state.last_converged_replicas = 2;
       },
       DecisionKind::Freeze, 3, "ScaleInFlight", nullptr, "Ready"},
      {"deadline_passed_rolls_back_scale_up",
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 901;
         c.state.last_converged_replicas = 2;
         c.state.last_applied_replicas = 3;
       },
       DecisionKind::Rollback, 2, "StuckScaling", "scale did not converge; rolling back to 2", "Ready"},
      {"deadline_passed_no_safe_target_freezes",
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 901;
         c.state.last_converged_replicas = 3;
       },
       DecisionKind::Freeze, 3, "StuckScaling", "scale did not converge and no safe rollback target", "Ready"},
      {"rollback_target_below_quorum_floor_is_unsafe",
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.obs.quorum_floor = 3;
         c.state.in_flight_since = c.now - 901;
         c.state.last_converged_replicas = 2;
       },
       DecisionKind::Freeze, 3, "StuckScaling", "scale did not converge and no safe rollback target", "Ready"},
      {"stuck_scale_down_never_rolls_back_up",  // docs/behaviour.md#diff-no-upward-rollback
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 5000;
         c.state.last_converged_replicas = 4;
       },
       DecisionKind::Freeze, 3, "StuckScaling", "scale did not converge and no safe rollback target", "Ready"},
      {"unconverged_without_our_patch_is_not_converged",  // docs/behaviour.md#diff-deadline-own-scale
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.last_scale_time = c.now - 100000;  // the reference would rebuild a stale anchor here
         c.state.last_converged_replicas = 2;
       },
       DecisionKind::Freeze, 3, "NotConverged",
       "target not converged (2 of 3 available) and no scale of ours in flight; freezing", "Ready"},
      {"metric_outage_blocks_rollback_reference_order",
       [](DecideCase& c) {
         c.obs.metrics.clear();
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 901;
         c.state.last_converged_replicas = 2;
       },
       DecisionKind::Freeze, 3, "MetricUnavailable", nullptr, "Ready"},
      // --- health
      {"health_unknown_freezes",  // docs/behaviour.md#diff-health-fails-closed
       [](DecideCase& c) { c.obs.health_known = false; }, DecisionKind::Freeze, 3, "HealthUnknown",
       "health object missing or unreadable; freezing", "Ready"},
      {"health_unknown_never_rolls_back",
       [](DecideCase& c) {
         c.obs.health_known = false;
         c.obs.available_replicas = 0;
         c.state.in_flight_since = c.now - 5000;
         c.state.last_converged_replicas = 2;
       },
       DecisionKind::Freeze, 3, "HealthUnknown", nullptr, "Ready"},
      {"not_operational_freezes", [](DecideCase& c) { c.obs.operational = false; }, DecisionKind::Freeze, 3,
       "NotOperational", "target not operational; freezing", "Ready"},
      // --- lag brake
      {"lag_above_threshold_with_writes_brakes",
       [](DecideCase& c) {
         c.obs.lag_seconds = 31;
         c.obs.write_rate = 1;
       },
       DecisionKind::Freeze, 3, "ReplicationLag", "replication lag above threshold with active writes", "Ready"},
      {"lag_brake_blocks_scale_down_too",
       [](DecideCase& c) {
         c.load(0);
         c.obs.lag_seconds = 31;
         c.obs.write_rate = 1;
       },
       DecisionKind::Freeze, 3, "ReplicationLag", nullptr, "Ready"},
      {"lag_equal_threshold_passes",
       [](DecideCase& c) {
         c.obs.lag_seconds = 30;
         c.obs.write_rate = 1;
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"lag_without_writes_passes",
       [](DecideCase& c) {
         c.obs.lag_seconds = 100;
         c.obs.write_rate = 0;
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"lag_with_unknown_writes_brakes", [](DecideCase& c) { c.obs.lag_seconds = 100; }, DecisionKind::Freeze, 3,
       "ReplicationLag", nullptr, "Ready"},
      {"no_lag_signal_passes", [](DecideCase& c) { c.obs.write_rate = 100; }, DecisionKind::Scale, 4, "Ready", nullptr,
       "Ready"},
      {"nan_lag_fails_open",
       [](DecideCase& c) {
         c.obs.lag_seconds = kNaN;
         c.obs.write_rate = 1;
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"custom_zero_threshold",
       [](DecideCase& c) {
         c.spec.constraints.max_replication_lag_seconds = 0;
         c.obs.lag_seconds = 0.5;
         c.obs.write_rate = 1;
       },
       DecisionKind::Freeze, 3, "ReplicationLag", nullptr, "Ready"},
      // --- stabilization windows (age == window is inside)
      {"up_window_edge_included",
       [](DecideCase& c) {
         c.state.recommendations = {{c.now - 300, 3}};
       },
       DecisionKind::NoChange, 3, "Ready", nullptr, "Ready"},
      {"up_window_just_outside",
       [](DecideCase& c) {
         c.state.recommendations = {{c.now - 301, 3}};
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"down_window_edge_included",
       [](DecideCase& c) {
         c.load(0);
         c.state.recommendations = {{c.now - 1800, 3}};
       },
       DecisionKind::NoChange, 3, "Ready", nullptr, "Ready"},
      {"down_window_just_outside",
       [](DecideCase& c) {
         c.load(0);
         c.state.recommendations = {{c.now - 1801, 3}};
       },
       DecisionKind::Scale, 2, "Ready", nullptr, "Ready"},
      {"zero_window_includes_same_second",
       [](DecideCase& c) {
         c.spec.behavior.scale_up.stabilization_window_seconds = 0;
         c.state.recommendations = {{c.now, 3}, {c.now - 1, 3}};
       },
       DecisionKind::NoChange, 3, "Ready", nullptr, "Ready"},
      {"zero_window_ignores_older",
       [](DecideCase& c) {
         c.spec.behavior.scale_up.stabilization_window_seconds = 0;
         c.state.recommendations = {{c.now - 1, 3}};
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      // --- bounds and their precedence
      {"raising_min_steps_up_not_limited",
       [](DecideCase& c) {
         c.spec.min_replicas = 5;
         c.load(300);
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"lowering_max_walks_down_bypassing_window",
       [](DecideCase& c) {
         c.spec.max_replicas = 2;
         c.current(4);
         c.load(450);  // raw == current 4
         c.state.recommendations = {{c.now - 60, 4}};
       },
       DecisionKind::Scale, 3, "AtLimit", "held at maxReplicas 2", "AtLimit"},
      {"at_max_no_change_is_limited", [](DecideCase& c) { c.spec.max_replicas = 3; }, DecisionKind::NoChange, 3,
       "AtLimit", "held at maxReplicas 3", "AtLimit"},
      {"quorum_floor_climb_is_not_step_limited", [](DecideCase& c) { c.obs.quorum_floor = 5; }, DecisionKind::Scale, 5,
       "QuorumFloor", "held at quorum floor 5", "QuorumFloor"},
      {"quorum_floor_overrides_max",
       [](DecideCase& c) {
         c.spec.max_replicas = 4;
         c.obs.quorum_floor = 5;
         c.current(5);
         c.load(1500);  // raw 11 -> max 4 (AtLimit) -> floor 5 (QuorumFloor, applied last)
       },
       DecisionKind::NoChange, 5, "QuorumFloor", "held at quorum floor 5", "QuorumFloor"},
      {"scale_down_toward_floor_respects_step",
       [](DecideCase& c) {
         c.current(6);
         c.obs.quorum_floor = 3;
         c.load(0);
       },
       DecisionKind::Scale, 5, "QuorumFloor", "held at quorum floor 3", "QuorumFloor"},
      {"quota_clamps_to_current", [](DecideCase& c) { c.obs.quota_max_replicas = 3; }, DecisionKind::NoChange, 3,
       "QuotaExceeded", "clamped to tenant quota ceiling 3", "QuotaExceeded"},
      {"quota_wins_over_max_last_clamp_reported",
       [](DecideCase& c) {
         c.load(1500);
         c.obs.quota_max_replicas = 4;
       },
       DecisionKind::Scale, 4, "QuotaExceeded", "clamped to tenant quota ceiling 4", "QuotaExceeded"},
      // --- step limits
      {"scale_up_step_two",
       [](DecideCase& c) {
         c.spec.behavior.scale_up.step = 2;
         c.load(900);  // raw 7 -> max 6 -> step 2 -> 5
       },
       DecisionKind::Scale, 5, "AtLimit", nullptr, "AtLimit"},
      {"scale_down_step_two",
       [](DecideCase& c) {
         c.spec.behavior.scale_down.step = 2;
         c.current(6);
         c.load(0);
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      // --- backoff
      {"backoff_holds_failed_size",
       [](DecideCase& c) {
         c.state.backoff = model::Backoff{4, c.now + 100, 1};
       },
       DecisionKind::Freeze, 3, "StuckScaling", "backing off re-attempt of 4 replicas until 1970-01-01T02:48:20Z",
       "Ready"},
      {"backoff_expires_at_until",
       [](DecideCase& c) {
         c.state.backoff = model::Backoff{4, c.now, 1};
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"backoff_other_size_passes",
       [](DecideCase& c) {
         c.state.backoff = model::Backoff{5, c.now + 100, 1};
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      // --- ownership
      {"competing_writer_holds", [](DecideCase& c) { c.state.last_applied_replicas = 4; }, DecisionKind::NoChange, 3,
       "OwnershipConflict", "replicas changed by a competing writer", "OwnershipConflict"},
      {"conflict_takes_limited_precedence_over_freeze",
       [](DecideCase& c) {
         c.state.last_applied_replicas = 4;
         c.obs.metrics.clear();
       },
       DecisionKind::Freeze, 3, "MetricUnavailable", nullptr, "OwnershipConflict"},
      {"conflict_withholds_rollback",
       [](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 901;
         c.state.last_converged_replicas = 2;
         c.state.last_applied_replicas = 4;
       },
       DecisionKind::Freeze, 3, "StuckScaling",
       "scale did not converge; rollback withheld: replicas changed by a "
       "competing writer",
       "OwnershipConflict"},
      {"writer_restored_clears_conflict", [](DecideCase& c) { c.state.last_applied_replicas = 3; }, DecisionKind::Scale,
       4, "Ready", nullptr, "Ready"},
      // --- dry run keeps the decision
      {"dry_run_scale_unchanged", [](DecideCase& c) { c.spec.dry_run = true; }, DecisionKind::Scale, 4, "Ready",
       nullptr, "Ready"},
      {"dry_run_rollback_unchanged",
       [](DecideCase& c) {
         c.spec.dry_run = true;
         c.obs.available_replicas = 2;
         c.state.in_flight_since = c.now - 901;
         c.state.last_converged_replicas = 2;
       },
       DecisionKind::Rollback, 2, "StuckScaling", nullptr, "Ready"},
      // --- multiple metrics and tolerance
      {"multi_metric_takes_max",
       [](DecideCase& c) {
         c.spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":8,"behavior":{"scaleUp":{"step":5}},
             "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}},
                        {"type":"ReadCPUUtilization","target":{"averageValue":"250m"}}]})");
         c.obs.metrics = {{"ReadConnections", 300.0}, {"ReadCPUUtilization", 1000.0}};  // 3 and 5
       },
       DecisionKind::Scale, 5, "Ready", nullptr, "Ready"},
      {"tolerance_skips_small_deviation",
       [](DecideCase& c) {
         c.spec.behavior.tolerance = 0.1;
         c.load(320);  // 160 per reader: 6.7% over
       },
       DecisionKind::NoChange, 3, "Ready", nullptr, "Ready"},
      {"tolerance_acts_beyond_band",
       [](DecideCase& c) {
         c.spec.behavior.tolerance = 0.1;
         c.load(340);  // 170 per reader: 13% over
       },
       DecisionKind::Scale, 4, "Ready", nullptr, "Ready"},
      {"zero_tolerance_acts_on_any_deviation", [](DecideCase& c) { c.load(301); }, DecisionKind::Scale, 4, "Ready",
       nullptr, "Ready"},
  };
}

class DecideTable : public ::testing::TestWithParam<Row> {};

TEST_P(DecideTable, Decides) {
  const Row& row = GetParam();
  DecideCase c;
  row.setup(c);
  const decide::Decision d = c.run();
  EXPECT_EQ(model::to_string(d.kind), model::to_string(row.kind));
  EXPECT_EQ(d.desired_replicas, row.desired);
  EXPECT_EQ(d.reason, row.reason);
  if (row.message != nullptr) {
    EXPECT_EQ(d.message, row.message);
  }
  EXPECT_EQ(d.scaling_limited_condition.reason, row.limited_reason);
  EXPECT_EQ(d.limited, std::string(row.limited_reason) != "Ready");
  const bool able = row.kind == DecisionKind::Scale || row.kind == DecisionKind::NoChange;
  EXPECT_EQ(d.able_to_scale, able);
  EXPECT_EQ(d.able_to_scale_condition.status, able ? "True" : "False");
  if (!able) {
    EXPECT_EQ(d.able_to_scale_condition.reason, row.reason);
    EXPECT_EQ(d.able_to_scale_condition.message, d.message);
  } else {
    EXPECT_EQ(d.able_to_scale_condition.reason, "Ready");
    EXPECT_EQ(d.able_to_scale_condition.message, "ready to scale");
  }
  EXPECT_FALSE(d.trace.empty());
}

INSTANTIATE_TEST_SUITE_P(Cases, DecideTable, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dha::testing
