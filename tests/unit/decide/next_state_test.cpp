// The next state a decision carries ("as if the decision is carried out"), the backoff rules,
// restart-from-status equivalence, and how a decision is stored in status.

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <limits>

#include "decide_test_support.hpp"
#include "dha/model/recommendation_history.hpp"
#include "dha/status_writer/decision_status.hpp"

namespace dha::testing {
namespace {

using model::DecisionKind;

TEST(NextState, ScaleRecordsInFlightAppliedAndRecommendation) {
  DecideCase c;
  c.state.last_converged_replicas = 3;
  const auto d = c.run();
  ASSERT_EQ(d.kind, DecisionKind::Scale);
  EXPECT_TRUE(d.apply);
  EXPECT_EQ(d.next_state.in_flight_since, c.now);
  EXPECT_EQ(d.next_state.last_applied_replicas, 4);
  EXPECT_EQ(d.next_state.last_scale_time, c.now);
  EXPECT_EQ(d.next_state.last_converged_replicas, 3);
  ASSERT_EQ(d.next_state.recommendations.size(), 1u);
  EXPECT_EQ(d.next_state.recommendations[0], (model::Recommendation{c.now, 4}));
}

TEST(NextState, FirstCycleAdoptsCurrentAsConverged) {
  DecideCase c;
  c.load(300);
  const auto d = c.run();
  EXPECT_EQ(d.kind, DecisionKind::NoChange);
  EXPECT_FALSE(d.apply);
  EXPECT_EQ(d.next_state.last_converged_replicas, 3);
  EXPECT_FALSE(d.next_state.in_flight_since);
  EXPECT_FALSE(d.next_state.last_applied_replicas);
}

TEST(NextState, ConvergenceClearsInFlightAndRefreshesLastConverged) {
  DecideCase c;
  c.current(4);
  c.load(450);
  c.state.in_flight_since = c.now - 120;
  c.state.last_converged_replicas = 3;
  c.state.last_applied_replicas = 4;
  const auto d = c.run();
  EXPECT_FALSE(d.next_state.in_flight_since);
  EXPECT_EQ(d.next_state.last_converged_replicas, 4);
}

TEST(NextState, NotOperationalDoesNotCountAsConverged) {
  DecideCase c;
  c.obs.operational = false;
  c.state.in_flight_since = c.now - 120;
  c.state.last_converged_replicas = 2;
  const auto d = c.run();
  EXPECT_EQ(d.next_state.in_flight_since, c.now - 120);
  EXPECT_EQ(d.next_state.last_converged_replicas, 2);
}

TEST(NextState, MetricOutageRecordsNoRecommendationButPrunes) {
  DecideCase c;
  c.obs.metrics.clear();
  c.state.recommendations = {{c.now - 5000, 6}, {c.now - 100, 4}};
  const auto d = c.run();
  EXPECT_EQ(d.raw_desired_replicas, 0);
  ASSERT_EQ(d.next_state.recommendations.size(), 1u);
  EXPECT_EQ(d.next_state.recommendations[0].time, c.now - 100);
}

TEST(NextState, FreezeWithMetricsStillRecordsRecommendation) {
  DecideCase c;
  c.obs.lag_seconds = 100;
  const auto d = c.run();
  ASSERT_EQ(d.kind, DecisionKind::Freeze);
  EXPECT_EQ(d.raw_desired_replicas, 4);
  ASSERT_EQ(d.next_state.recommendations.size(), 1u);
  EXPECT_EQ(d.next_state.recommendations[0].replicas, 4);
}

TEST(NextState, HistoryPrunedToLongestWindowKeepingTheCutoff) {
  DecideCase c;
  c.state.recommendations = {{c.now - 1801, 5}, {c.now - 1800, 5}, {c.now - 10, 3}};
  const auto d = c.run();
  ASSERT_EQ(d.next_state.recommendations.size(), 3u);
  EXPECT_EQ(d.next_state.recommendations[0].time, c.now - 1800);
}

TEST(NextState, DryRunCarriesNothingOut) {
  DecideCase c;
  c.spec.dry_run = true;
  c.state.last_converged_replicas = 3;
  const auto d = c.run();
  EXPECT_EQ(d.kind, DecisionKind::Scale);
  EXPECT_EQ(d.desired_replicas, 4);
  EXPECT_FALSE(d.apply);
  model::DecisionState expected = c.state;
  expected.recommendations = {{c.now, 4}};
  EXPECT_EQ(d.next_state, expected);
  EXPECT_EQ(d.trace.back().reason, "DryRun");
  EXPECT_EQ(d.trace.back().message, "dry run: would scale 3 -> 4; nothing is applied");
}

TEST(NextState, OwnershipConflictWritesNothing) {
  DecideCase c;
  c.state.last_applied_replicas = 5;
  const auto d = c.run();
  EXPECT_FALSE(d.apply);
  EXPECT_EQ(d.next_state.last_applied_replicas, 5);
  EXPECT_FALSE(d.next_state.in_flight_since);
}

// A rollback from the stuck size S to lastConverged: backoff for S, doubling while S repeats.
decide::Decision rollback_from(std::int32_t stuck, const std::optional<model::Backoff>& previous) {
  DecideCase c;
  c.current(stuck);
  c.obs.available_replicas = stuck - 1;
  c.load(0);
  c.state.in_flight_since = c.now - 901;
  c.state.last_converged_replicas = 2;
  c.state.last_applied_replicas = stuck;
  c.state.backoff = previous;
  return c.run();
}

TEST(NextStateBackoff, RollbackStartsBackoffAtTheStuckSize) {
  const auto d = rollback_from(4, std::nullopt);
  ASSERT_EQ(d.kind, DecisionKind::Rollback);
  EXPECT_TRUE(d.apply);
  EXPECT_EQ(d.next_state.backoff, (model::Backoff{4, 10000 + 900, 1}));
  EXPECT_EQ(d.next_state.in_flight_since, 10000);
  EXPECT_EQ(d.next_state.last_applied_replicas, 2);
  EXPECT_EQ(d.next_state.last_scale_time, 10000);
}

TEST(NextStateBackoff, RepeatedFailuresDoubleUpToEightTimes) {
  const std::int64_t holds[] = {900, 1800, 3600, 7200, 7200};
  std::optional<model::Backoff> backoff;
  for (int i = 0; i < 5; ++i) {
    const auto d = rollback_from(4, backoff);
    ASSERT_TRUE(d.next_state.backoff);
    EXPECT_EQ(d.next_state.backoff->count, i + 1);
    EXPECT_EQ(d.next_state.backoff->until, 10000 + holds[i]) << "failure " << i + 1;
    backoff = d.next_state.backoff;
  }
}

TEST(NextStateBackoff, ADifferentStuckSizeRestartsTheCount) {
  const auto d = rollback_from(5, model::Backoff{4, 9000, 3});
  EXPECT_EQ(d.next_state.backoff, (model::Backoff{5, 10000 + 900, 1}));
}

TEST(NextStateBackoff, DryRunRollbackRecordsNoBackoff) {
  DecideCase c;
  c.spec.dry_run = true;
  c.obs.available_replicas = 2;
  c.state.in_flight_since = c.now - 901;
  c.state.last_converged_replicas = 2;
  const auto d = c.run();
  ASSERT_EQ(d.kind, DecisionKind::Rollback);
  EXPECT_FALSE(d.next_state.backoff);
  EXPECT_EQ(d.next_state.in_flight_since, c.now - 901);
}

// Freezes never clear the backoff; only a metric-backed natural target below it does.
struct ClearRow {
  const char* name;
  std::function<void(DecideCase&)> setup;
  bool cleared;
};

class BackoffClearing : public ::testing::TestWithParam<ClearRow> {};

TEST_P(BackoffClearing, OnlyANaturalTargetBelowTheFailedSizeClears) {
  DecideCase c;
  c.state.backoff = model::Backoff{5, c.now + 100, 2};
  GetParam().setup(c);
  const auto d = c.run();
  EXPECT_EQ(!d.next_state.backoff.has_value(), GetParam().cleared);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BackoffClearing,
    ::testing::Values(ClearRow{"natural_below_failed_clears", [](DecideCase&) {}, true},
                      ClearRow{"natural_equal_failed_keeps", [](DecideCase& c) { c.load(600); }, false},
                      ClearRow{"metric_outage_keeps", [](DecideCase& c) { c.obs.metrics.clear(); }, false},
                      ClearRow{"not_operational_keeps", [](DecideCase& c) { c.obs.operational = false; }, false},
                      ClearRow{"in_flight_keeps",
                               [](DecideCase& c) {
                                 c.obs.available_replicas = 2;
                                 c.state.in_flight_since = c.now - 10;
                               },
                               false},
                      ClearRow{"lag_brake_keeps", [](DecideCase& c) { c.obs.lag_seconds = 99; }, false},
                      ClearRow{"expired_backoff_kept_until_natural_drops",
                               [](DecideCase& c) {
                                 c.state.backoff->until = c.now - 1;
                                 c.load(900);
                               },
                               false}),
    [](const auto& info) { return std::string(info.param.name); });

// Persisting the state in status and reading it back changes no decision.
std::string status_roundtrip_json(const model::DhaStatus& status) {
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = model::status_to_json(status, doc.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

TEST(RestartFromStatus, DecisionsEqualInMemoryAcrossManyCycles) {
  // A load that rises, spikes, drops, and a replica that takes long to come up (rollback).
  const double loads[] = {300, 420, 600, 900, 900, 1200, 1500, 600, 300, 150, 0, 0, 0, 0, 700, 700, 700, 700};
  model::DhaSpec spec = baseline_spec();
  spec.behavior.scale_up.stabilization_window_seconds = 120;
  spec.behavior.scale_down.stabilization_window_seconds = 600;
  spec.behavior.convergence_deadline_seconds = 180;

  model::DecisionState memory;
  model::DhaStatus status;
  std::int32_t current = 3, available = 3;
  std::int64_t now = 1'700'000'000;
  int rollbacks = 0;
  for (int cycle = 0; cycle < 60; ++cycle, now += 60) {
    model::Observation obs = baseline_observation();
    obs.current_replicas = current;
    obs.available_replicas = available;
    obs.metrics = {{"ReadConnections", loads[cycle % std::size(loads)]}};

    const auto in_memory = decide::decide(spec, obs, memory, now);
    // Restarted operator: state only from the status JSON written last cycle.
    rapidjson::Document doc;
    const std::string text = status_roundtrip_json(status);
    doc.Parse(text.c_str());
    const model::DhaStatus restored = model::parse_status(doc);
    const auto restarted = decide::decide(spec, obs, restored.state, now);

    ASSERT_EQ(model::to_string(restarted.kind), model::to_string(in_memory.kind)) << "cycle " << cycle;
    ASSERT_EQ(restarted.desired_replicas, in_memory.desired_replicas) << "cycle " << cycle;
    ASSERT_EQ(restarted.reason, in_memory.reason) << "cycle " << cycle;
    ASSERT_EQ(restarted.trace, in_memory.trace) << "cycle " << cycle;
    // The status keeps only the recommendations a window can still need; the state is the same
    // once the in-memory one drops its redundant entries too.
    auto compacted = in_memory.next_state;
    model::drop_redundant_recommendations(compacted.recommendations);
    auto restarted_state = restarted.next_state;
    model::drop_redundant_recommendations(restarted_state.recommendations);
    ASSERT_EQ(restarted_state, compacted) << "cycle " << cycle;

    memory = in_memory.next_state;
    status::store_in_status(status, in_memory, now, 1);
    if (in_memory.apply) {
      rollbacks += in_memory.kind == DecisionKind::Rollback ? 1 : 0;
      current = in_memory.desired_replicas;
    }
    // Scale-downs are immediate; the 5th replica never becomes available (forces a rollback).
    available = std::min(current, 4);
  }
  EXPECT_GE(rollbacks, 1);
  EXPECT_EQ(status.last_decision->trace.size() > 0, true);
}

TEST(StoreInStatus, WritesCountsMetricsDecisionAndConditions) {
  DecideCase c;
  model::DhaStatus status;
  const auto d = c.run();
  status::store_in_status(status, d, c.now, 7);
  EXPECT_EQ(status.observed_generation, 7);
  EXPECT_EQ(status.current_replicas, 3);
  EXPECT_EQ(status.desired_replicas, 4);
  ASSERT_EQ(status.current_metrics.size(), 1u);
  EXPECT_EQ(status.current_metrics[0].average_value, "210");
  ASSERT_TRUE(status.last_decision);
  EXPECT_EQ(status.last_decision->kind, DecisionKind::Scale);
  EXPECT_EQ(status.last_decision->raw_desired_replicas, 4);
  EXPECT_EQ(status.last_decision->trace, d.trace);
  const auto* able = model::find_condition(status.conditions, "AbleToScale");
  ASSERT_NE(able, nullptr);
  EXPECT_EQ(able->status, "True");
  EXPECT_EQ(able->last_transition_time, c.now);
  EXPECT_EQ(able->observed_generation, 7);

  // A later, still-able cycle keeps the transition time; a freeze flips it.
  c.now += 60;
  status::store_in_status(status, c.run(), c.now, 7);
  EXPECT_EQ(model::find_condition(status.conditions, "AbleToScale")->last_transition_time, c.now - 60);
  c.obs.metrics.clear();
  status::store_in_status(status, c.run(), c.now, 7);
  EXPECT_EQ(model::find_condition(status.conditions, "AbleToScale")->reason, "MetricUnavailable");
  EXPECT_EQ(model::find_condition(status.conditions, "AbleToScale")->last_transition_time, c.now);
  EXPECT_TRUE(status.current_metrics.empty());
}

TEST(StoreInStatus, RendersCpuAsTruncatedMillicoresAndConnectionsRoundedHalfUp) {
  DecideCase c;
  c.spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}},
                 {"type":"ReadCPUUtilization","target":{"averageValue":"1"}}]})");
  c.obs.metrics = {{"ReadConnections", 151.0}, {"ReadCPUUtilization", 501.4}};  // 75.5 and 250.7 per reader
  model::DhaStatus status;
  status::store_in_status(status, c.run(), c.now, 1);
  ASSERT_EQ(status.current_metrics.size(), 2u);
  EXPECT_EQ(status.current_metrics[0].average_value, "76");
  EXPECT_EQ(status.current_metrics[1].average_value, "250m");
}

}  // namespace
}  // namespace dha::testing

namespace dha::testing {
namespace {

// Times come from user input: extreme values must saturate, not overflow (UBSan checks this).
TEST(ExtremeInput, TimesAtTheInt64EdgesDoNotOverflow) {
  DecideCase c;
  c.obs.available_replicas = 2;
  c.state.in_flight_since = std::numeric_limits<std::int64_t>::min();
  c.state.last_converged_replicas = 2;
  c.state.recommendations = {{std::numeric_limits<std::int64_t>::min(), 9},
                             {std::numeric_limits<std::int64_t>::max(), 1}};
  c.state.backoff = model::Backoff{3, std::numeric_limits<std::int64_t>::max(), INT32_MAX};
  const auto d = c.run();
  EXPECT_EQ(d.kind, model::DecisionKind::Rollback);  // an ancient in-flight scale is past any deadline
  EXPECT_EQ(d.next_state.backoff, (model::Backoff{3, c.now + 7200, INT32_MAX}));  // count saturates
  // The recommendation from the far future stays (age is negative, inside every window).
  EXPECT_EQ(d.next_state.recommendations.back().time, std::numeric_limits<std::int64_t>::max());
}

TEST(ExtremeInput, CountsAtTheInt32EdgesDoNotOverflow) {
  DecideCase c;
  c.spec.max_replicas = INT32_MAX;
  c.spec.behavior.scale_up.step = INT32_MAX;
  c.obs.primary_count = INT32_MAX;
  c.obs.quorum_floor = INT32_MAX;
  c.load(1e18);
  const auto d = c.run();
  EXPECT_EQ(d.desired_replicas, INT32_MAX);
  EXPECT_EQ(d.kind, model::DecisionKind::Scale);
}

}  // namespace
}  // namespace dha::testing
