// The Adaptive policy, case by case. Baseline: min 2, max 8, target 150 connections per reader,
// policy Adaptive with a 10% up-margin and 20% headroom (x1.25), current 3 (1 primary + 2
// readers, 300 at target), converged. Demand is the total load in read replicas at target: 420
// connections is 2.8, and 2.8 x 1.25 = 3.5 -> 4 readers -> 5 replicas.

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <optional>

#include "decide_test_support.hpp"
#include "dha/decide/adaptive_policy.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/status.hpp"

namespace dha::testing {
namespace {

using model::DecisionKind;

model::DhaSpec adaptive_spec(const std::string& extra = "") {
  return spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}],
      "behavior":{"policy":"Adaptive")" +
                        extra + "}}");
}

DecideCase adaptive_case() {
  DecideCase c;
  c.spec = adaptive_spec(R"(,"adaptive":{"upMargin":0.1,"downHysteresis":0.2})");
  return c;
}

struct Row {
  const char* name;
  std::function<void(DecideCase&)> setup;
  DecisionKind kind;
  std::int32_t desired;
  const char* policy_reason;  // the Adaptive trace entry's reason
  const char* reason;         // the decision's reason
};

std::string policy_reason(const decide::Decision& d) {
  for (const auto& e : d.trace)
    if (e.gate == "Adaptive") return e.reason;
  return "(none)";
}

std::vector<Row> rows() {
  const std::int64_t now = 10000;
  return {
      // --- up: at once when real, sized by need, headroom and the ready time
      {"far_above_target_scales_at_once", [](DecideCase&) {}, DecisionKind::Scale, 5, "Overload", "Ready"},
      {"blip_within_margin_waits_a_cycle", [](DecideCase& c) { c.load(320); }, DecisionKind::NoChange, 3, "Unconfirmed",
       "Ready"},
      {"blip_confirmed_by_previous_cycle",
       [=](DecideCase& c) {
         c.load(320);  // 2.13, the trend adds 0.07 in 120 s: 2.2 x 1.25 = 2.75
         c.state.last_demand = model::Demand{now - 60, 2.1};
       },
       DecisionKind::Scale, 4, "Overload", "Ready"},
      {"old_demand_does_not_confirm",
       [=](DecideCase& c) {
         c.load(320);
         c.state.last_demand = model::Demand{now - 400, 2.5};
       },
       DecisionKind::NoChange, 3, "Unconfirmed", "Ready"},
      {"previous_demand_within_target_does_not_confirm",
       [=](DecideCase& c) {
         c.load(320);
         c.state.last_demand = model::Demand{now - 60, 1.9};
       },
       DecisionKind::NoChange, 3, "Unconfirmed", "Ready"},
      {"no_margin_acts_on_any_overload",
       [](DecideCase& c) {
         c.spec = adaptive_spec(R"(,"adaptive":{"upMargin":0,"downHysteresis":0.2})");
         c.load(320);
       },
       DecisionKind::Scale, 4, "Overload", "Ready"},
      {"whole_need_in_one_step", [](DecideCase& c) { c.load(540); }, DecisionKind::Scale, 6, "Overload",
       "Ready"},  // 3.6 x 1.25 = 4.5
      {"rising_load_sized_for_the_assumed_ready_time",
       [=](DecideCase& c) {
         c.state.last_demand = model::Demand{now - 60, 2.5};
       },  // (2.8 + 0.6) x 1.25 = 4.25
       DecisionKind::Scale, 6, "Overload", "Ready"},
      {"rising_load_sized_for_the_measured_ready_time",
       [=](DecideCase& c) {
         c.state.last_demand = model::Demand{now - 60, 2.5};
         c.state.ready_seconds = 300;  // (2.8 + 1.5) x 1.25 = 5.375
       },
       DecisionKind::Scale, 7, "Overload", "Ready"},
      {"a_jump_from_within_target_is_met_at_its_size",
       [=](DecideCase& c) {
         c.state.last_demand = model::Demand{now - 60, 1.5};
       },  // no trend from 1.5
       DecisionKind::Scale, 5, "Overload", "Ready"},
      {"falling_load_is_not_extrapolated_down",
       [=](DecideCase& c) {
         c.state.last_demand = model::Demand{now - 60, 3.5};
       },
       DecisionKind::Scale, 5, "Overload", "Ready"},
      {"beyond_max_is_held_at_max", [](DecideCase& c) { c.load(5000); }, DecisionKind::Scale, 8, "Overload", "AtLimit"},
      // --- down: hysteresis, then the window and the step
      {"on_target_holds", [](DecideCase& c) { c.load(300); }, DecisionKind::NoChange, 3, "Pass", "Ready"},
      {"too_little_headroom_to_go_down",
       [](DecideCase& c) { c.current(4).load(280); },  // 1.87 x 1.25 = 2.33: two readers are not enough
       DecisionKind::NoChange, 4, "Pass", "Ready"},
      {"enough_headroom_goes_down", [](DecideCase& c) { c.current(4).load(225); }, DecisionKind::Scale, 3, "Headroom",
       "Ready"},  // 1.5 x 1.25 = 1.875
      {"down_held_by_a_recent_higher_need",
       [=](DecideCase& c) {
         c.current(4).load(225);
         c.state.recommendations = {{now - 300, 4}};
       },
       DecisionKind::NoChange, 4, "Headroom", "Ready"},
      // The whole measured surplus in one step: the size that kept the headroom all window long.
      {"down_by_the_whole_surplus", [](DecideCase& c) { c.current(6).load(0); }, DecisionKind::Scale, 2, "Headroom",
       "Ready"},
      {"down_to_the_largest_need_of_the_window",
       [=](DecideCase& c) {
         c.current(8).load(225);  // 1.5 x 1.25 -> 2 readers, but 5 replicas were needed 300 s ago
         c.state.recommendations = {{now - 300, 5}, {now - 120, 4}};
       },
       DecisionKind::Scale, 5, "Headroom", "Ready"},
      {"down_sizing_keeps_the_headroom",
       [](DecideCase& c) { c.current(8).load(480); },  // 3.2 x 1.25 = 4 readers exactly: 5, not 4
       DecisionKind::Scale, 5, "Headroom", "Ready"},
      // --- no reversal: a fall the load's growth would undo within ready time + down-window
      {"a_rise_that_would_reverse_the_fall_holds_it",
       [=](DecideCase& c) {
         c.current(6).load(225);  // 1.5, up from 1.2 a minute ago: 5.1 expected within 720 s
         c.state.last_demand = model::Demand{now - 60, 1.2};
       },
       DecisionKind::NoChange, 6, "Rising", "Ready"},
      {"a_rise_that_would_overload_a_smaller_size_holds_part_of_the_fall",
       [=](DecideCase& c) {
         c.current(8).load(225);  // 1.5, up from 1.4: 2.7 expected, 3 readers with headroom held
         c.state.last_demand = model::Demand{now - 60, 1.4};
       },
       DecisionKind::Scale, 5, "Rising", "Ready"},
      {"a_rise_too_slow_to_reverse_it_lets_the_fall_through",
       [=](DecideCase& c) {
         c.current(6).load(225);  // 1.5, up from 1.49: 1.62 expected, 2 readers still enough
         c.state.last_demand = model::Demand{now - 60, 1.49};
       },
       DecisionKind::Scale, 3, "Headroom", "Ready"},
      {"a_falling_load_falls",
       [=](DecideCase& c) {
         c.current(6).load(225);
         c.state.last_demand = model::Demand{now - 60, 3.0};
       },
       DecisionKind::Scale, 3, "Headroom", "Ready"},
      {"a_set_down_step_still_limits",
       [](DecideCase& c) {
         c.spec = adaptive_spec(R"(,"adaptive":{"upMargin":0.1,"downHysteresis":0.2},"scaleDown":{"step":1})");
         c.current(6).load(0);
       },
       DecisionKind::Scale, 5, "Headroom", "Ready"},
      // --- every guardrail still has the last word
      {"scale_in_flight_waits",
       [=](DecideCase& c) {
         c.obs.available_replicas = 2;
         c.state.in_flight_since = now - 60;
         c.state.last_applied_replicas = 3;
       },
       DecisionKind::Freeze, 3, "Overload", "ScaleInFlight"},
      {"lag_brake_holds",
       [](DecideCase& c) {
         c.obs.lag_seconds = 60;
         c.obs.write_rate = 10;
       },
       DecisionKind::Freeze, 3, "Overload", "ReplicationLag"},
      {"quota_clamps", [](DecideCase& c) { c.load(900).obs.quota_max_replicas = 5; }, DecisionKind::Scale, 5,
       "Overload", "QuotaExceeded"},
      {"quorum_floor_raises", [](DecideCase& c) { c.load(0).obs.quorum_floor = 3; }, DecisionKind::NoChange, 3,
       "Headroom", "QuorumFloor"},
      {"backoff_holds_the_failed_size",
       [=](DecideCase& c) {
         c.state.backoff = model::Backoff{5, now + 100, 1};
       },
       DecisionKind::Freeze, 3, "Overload", "StuckScaling"},
      {"metric_outage_freezes_without_a_policy_entry", [](DecideCase& c) { c.obs.metrics.clear(); },
       DecisionKind::Freeze, 3, "(none)", "MetricUnavailable"},
      {"competing_writer_holds", [](DecideCase& c) { c.state.last_applied_replicas = 2; }, DecisionKind::NoChange, 3,
       "Overload", "OwnershipConflict"},
  };
}

class AdaptiveTable : public ::testing::TestWithParam<Row> {};

TEST_P(AdaptiveTable, Decides) {
  const Row& row = GetParam();
  DecideCase c = adaptive_case();
  row.setup(c);
  const auto d = c.run();
  EXPECT_EQ(model::to_string(d.kind), model::to_string(row.kind));
  EXPECT_EQ(d.desired_replicas, row.desired);
  EXPECT_EQ(policy_reason(d), row.policy_reason);
  EXPECT_EQ(d.reason, row.reason) << d.message;
}

INSTANTIATE_TEST_SUITE_P(Rows, AdaptiveTable, ::testing::ValuesIn(rows()),
                         [](const auto& info) { return std::string(info.param.name); });

// Predictive: the observation carries a forecast (largest demand within its horizon).
DecideCase predictive_case(double forecast) {
  DecideCase c;
  c.spec = adaptive_spec(R"(,"adaptive":{"upMargin":0.1,"downHysteresis":0.2,"predictive":true})");
  c.obs.forecast = model::Forecast{forecast, 240};
  return c;
}

struct ForecastRow {
  const char* name;
  double forecast;
  std::function<void(DecideCase&)> setup;
  DecisionKind kind;
  std::int32_t desired;
  const char* policy_reason;
  const char* reason;
};

class PredictiveTable : public ::testing::TestWithParam<ForecastRow> {};

TEST_P(PredictiveTable, Decides) {
  const ForecastRow& row = GetParam();
  DecideCase c = predictive_case(row.forecast);
  row.setup(c);
  const auto d = c.run();
  EXPECT_EQ(model::to_string(d.kind), model::to_string(row.kind));
  EXPECT_EQ(d.desired_replicas, row.desired);
  EXPECT_EQ(policy_reason(d), row.policy_reason);
  EXPECT_EQ(d.reason, row.reason) << d.message;
  // Every forecast used is in the trace.
  ASSERT_FALSE(d.trace.empty());
  if (c.spec.behavior.adaptive.predictive && d.trace.front().gate == "Adaptive") {
    EXPECT_NE(d.trace.front().message.find(fmt::format("forecast {:.2f} read replicas within 240s", row.forecast)),
              std::string::npos)
        << d.trace.front().message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rows, PredictiveTable,
    ::testing::Values(
        // 300 connections fit 2 readers; 3.5 are expected: 3.5 x 1.25 -> 5 readers, ahead of the need.
        ForecastRow{"provisions_ahead_of_the_forecast", 3.5, [](DecideCase& c) { c.load(300); }, DecisionKind::Scale, 6,
                    "Forecast", "Ready"},
        ForecastRow{"a_quiet_forecast_never_scales_down", 0.5, [](DecideCase& c) { c.current(6).load(540); },
                    DecisionKind::NoChange, 6, "Pass", "Ready"},
        ForecastRow{"holds_a_size_the_forecast_needs_again", 3.0, [](DecideCase& c) { c.current(5).load(225); },
                    DecisionKind::NoChange, 5, "Forecast", "Ready"},
        ForecastRow{"the_load_seen_now_still_wins", 1.0, [](DecideCase&) {}, DecisionKind::Scale, 5, "Overload",
                    "Ready"},
        // 4 readers serve 3.9: within the headroom of a larger size (3.9 x 1.25 -> 5 readers), but
        // no overload is expected, so nothing is raised for it.
        ForecastRow{"a_forecast_the_current_size_serves_raises_nothing", 3.9,
                    [](DecideCase& c) { c.current(5).load(450); }, DecisionKind::NoChange, 5, "Pass", "Ready"},
        // 4.1 is more than 4 readers serve: provisioned ahead, with the headroom (5.125 -> 6 readers).
        ForecastRow{"a_forecast_beyond_the_current_size_raises", 4.1, [](DecideCase& c) { c.current(5).load(450); },
                    DecisionKind::Scale, 7, "Forecast", "Ready"},
        // The load alone would fall to 3; the forecast holds what it needs, but not more than there is.
        ForecastRow{"a_fall_is_held_at_the_current_size_not_raised", 3.9, [](DecideCase& c) { c.current(5).load(225); },
                    DecisionKind::NoChange, 5, "Forecast", "Ready"},
        ForecastRow{"the_lag_brake_holds_a_forecast_too", 3.5,
                    [](DecideCase& c) {
                      c.load(300);
                      c.obs.lag_seconds = 60;
                      c.obs.write_rate = 10;
                    },
                    DecisionKind::Freeze, 3, "Forecast", "ReplicationLag"},
        ForecastRow{"the_quota_caps_a_forecast", 3.5, [](DecideCase& c) { c.load(300).obs.quota_max_replicas = 4; },
                    DecisionKind::Scale, 4, "Forecast", "QuotaExceeded"},
        ForecastRow{"forecast_only_reports_and_acts_on_the_load", 3.5,
                    [](DecideCase& c) {
                      c.spec.behavior.adaptive.forecast_only = true;
                      c.load(300);
                    },
                    DecisionKind::NoChange, 3, "Pass", "Ready"},
        ForecastRow{"forecast_only_holds_nothing_for_the_forecast", 3.0,
                    [](DecideCase& c) {
                      c.spec.behavior.adaptive.forecast_only = true;
                      c.current(5).load(225);
                    },
                    DecisionKind::Scale, 3, "Headroom", "Ready"},
        ForecastRow{"ignored_unless_predictive", 3.5,
                    [](DecideCase& c) {
                      c.spec.behavior.adaptive.predictive = false;
                      c.load(300);
                    },
                    DecisionKind::NoChange, 3, "Pass", "Ready"}),
    [](const auto& info) { return std::string(info.param.name); });

// With a central estimate beside the figure that includes the margin: a comfortable size (the
// load within its headroom, here 20%) is raised only when the estimate is beyond it; a size the
// load already fills past its headroom is raised on the upper figure; either way a fall is held
// at what the upper figure needs.
void with_estimate(DecideCase& c, double estimate) { c.obs.forecast->estimate = estimate; }

INSTANTIATE_TEST_SUITE_P(
    Estimate, PredictiveTable,
    ::testing::Values(
        // 4 readers carry 3.0 (within 80% of them); only the margin reaches beyond 4: nothing raised.
        ForecastRow{"a_comfortable_size_is_not_raised_for_the_margin", 4.1,
                    [](DecideCase& c) {
                      with_estimate(c, 3.8);
                      c.current(5).load(450);
                    },
                    DecisionKind::NoChange, 5, "Pass", "Ready"},
        // The estimate itself is beyond 4 readers: raised with the headroom on the upper figure
        // (4.3 x 1.25 = 5.375 -> 6 readers).
        ForecastRow{"an_estimate_beyond_the_current_size_raises", 4.3,
                    [](DecideCase& c) {
                      with_estimate(c, 4.1);
                      c.current(5).load(450);
                    },
                    DecisionKind::Scale, 7, "Forecast", "Ready"},
        // 3.4 fills 4 readers past 80%: noise within the margin would overload them, so the upper
        // figure raises (4.1 x 1.25 -> 6 readers).
        ForecastRow{"a_full_size_is_raised_for_the_margin", 4.1,
                    [](DecideCase& c) {
                      with_estimate(c, 3.8);
                      c.current(5).load(510);
                    },
                    DecisionKind::Scale, 7, "Forecast", "Ready"},
        // The load alone would fall to 3 replicas; the upper figure (3.9 x 1.25 -> 5 readers) holds
        // the current 5, though the estimate alone would let two go.
        ForecastRow{"the_margin_holds_a_fall", 3.9,
                    [](DecideCase& c) {
                      with_estimate(c, 2.5);
                      c.current(5).load(225);
                    },
                    DecisionKind::NoChange, 5, "Forecast", "Ready"},
        // Forecast-only says what the same rule would do.
        ForecastRow{"forecast_only_reports_no_raise_for_the_margin", 4.1,
                    [](DecideCase& c) {
                      with_estimate(c, 3.8);
                      c.spec.behavior.adaptive.forecast_only = true;
                      c.current(5).load(450);
                    },
                    DecisionKind::NoChange, 5, "Pass", "Ready"}),
    [](const auto& info) { return std::string(info.param.name); });

// The trace says which figure kept the forecast from raising a comfortable size.
TEST(PredictiveEstimate, TheTraceSaysOnlyTheMarginWasAbove) {
  DecideCase c = predictive_case(4.1);
  with_estimate(c, 3.8);
  c.current(5).load(450);
  const auto d = c.run();
  EXPECT_EQ(d.desired_replicas, 5);
  ASSERT_FALSE(d.trace.empty());
  EXPECT_NE(d.trace.front().message.find("forecast 4.10 read replicas within 240s (estimate 3.80) (only its margin "
                                         "is above what 5 replicas serve, and the load leaves them their 20% "
                                         "headroom: nothing to pre-provision)"),
            std::string::npos)
      << d.trace.front().message;
  // What the upper figure needs is still recorded, so the down-window holds it.
  ASSERT_FALSE(d.next_state.recommendations.empty());
  EXPECT_EQ(d.next_state.recommendations.back().replicas, 7);
}

// A forecast that raises nothing still holds: what it needs with the headroom is recorded, so the
// down-window keeps that size until the forecast has let go of it for the whole window.
TEST(PredictiveHold, RecordsWhatTheForecastNeedsWhenItRaisesNothing) {
  DecideCase c = predictive_case(3.9);
  c.current(5).load(450);
  const auto d = c.run();
  EXPECT_EQ(d.desired_replicas, 5);
  ASSERT_FALSE(d.next_state.recommendations.empty());
  EXPECT_EQ(d.next_state.recommendations.back().replicas, 6);  // 3.9 x 1.25 -> 5 readers
  ASSERT_FALSE(d.trace.empty());
  EXPECT_NE(d.trace.front().message.find("within what 5 replicas serve: nothing to pre-provision"), std::string::npos)
      << d.trace.front().message;
}

// Forecast-only: the trace says what the forecast would have pre-provisioned.
TEST(PredictiveForecastOnly, SaysWhatItWouldPreProvision) {
  DecideCase c = predictive_case(3.5);
  c.spec = adaptive_spec(R"(,"adaptive":{"upMargin":0.1,"downHysteresis":0.2,"predictive":true,"forecastOnly":true})");
  ASSERT_TRUE(c.spec.behavior.adaptive.forecast_only);
  c.load(300);
  const auto d = c.run();
  EXPECT_EQ(d.desired_replicas, 3);
  ASSERT_FALSE(d.trace.empty());
  EXPECT_NE(d.trace.front().message.find(
                "forecast 3.50 read replicas within 240s: would pre-provision 6 replicas (forecast only)"),
            std::string::npos)
      << d.trace.front().message;
  // Nothing of the forecast is recorded: the down-window holds what the load needed with its
  // headroom (2.0 x 1.25 -> 3 readers, 4 replicas), not the forecast's 6.
  ASSERT_FALSE(d.next_state.recommendations.empty());
  EXPECT_EQ(d.next_state.recommendations.back().replicas, 4);
}

// Without a forecast a predictive DHA decides as a reactive one, and its trace says why.
TEST(PredictiveWithoutForecast, DecidesOnTheLoadAndSaysWhy) {
  DecideCase c = predictive_case(3.5);
  c.load(300);
  c.obs.forecast.reset();
  c.obs.forecast_missing = "ReadConnections range query failed (UNAVAILABLE): connection refused";
  const auto d = c.run();
  EXPECT_EQ(model::to_string(d.kind), model::to_string(DecisionKind::NoChange));
  EXPECT_EQ(d.desired_replicas, 3);
  ASSERT_FALSE(d.trace.empty());
  EXPECT_EQ(d.trace.front().gate, "Adaptive");
  EXPECT_NE(d.trace.front().message.find("; no forecast: ReadConnections range query failed (UNAVAILABLE)"),
            std::string::npos)
      << d.trace.front().message;
}

TEST(AdaptiveState, RemembersTheDemandForTheNextCycle) {
  const auto d = adaptive_case().run();
  ASSERT_TRUE(d.next_state.last_demand);
  EXPECT_EQ(d.next_state.last_demand->time, 10000);
  EXPECT_DOUBLE_EQ(d.next_state.last_demand->read_replicas, 2.8);
}

TEST(AdaptiveState, MeasuresTheReadyTimeOfOurScaleUp) {
  DecideCase c = adaptive_case();
  c.current(4).load(450);
  c.state.in_flight_since = c.now - 180;
  c.state.last_applied_replicas = 4;
  c.state.last_converged_replicas = 3;
  const auto d = c.run();
  EXPECT_EQ(d.next_state.ready_seconds, 180);
}

TEST(AdaptiveState, AScaleDownIsNotAReadyTime) {
  DecideCase c = adaptive_case();
  c.current(3).load(200);
  c.state.in_flight_since = c.now - 60;
  c.state.last_applied_replicas = 3;
  c.state.last_converged_replicas = 4;
  EXPECT_FALSE(c.run().next_state.ready_seconds);
}

TEST(AdaptiveState, TheWindowedPolicyKeepsNoneOfIt) {
  DecideCase c;
  const auto d = c.run();
  EXPECT_FALSE(d.next_state.last_demand);
  EXPECT_FALSE(d.next_state.ready_seconds);
  for (const auto& e : d.trace) EXPECT_NE(e.gate, "Adaptive");
}

// A restarted operator reads the state back from the DHA status; the decide command from its JSON.
TEST(AdaptiveState, SurvivesTheStatusAndTheDecideJson) {
  DecideCase c = adaptive_case();
  c.now = 1'700'000'000;
  c.state.ready_seconds = 200;
  const auto d = c.run();
  ASSERT_TRUE(d.next_state.last_demand);

  model::DhaStatus status;
  status.state = d.next_state;
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = model::status_to_json(status, doc.GetAllocator());
  EXPECT_EQ(model::parse_status(doc).state, d.next_state);

  rapidjson::Document state_doc;
  static_cast<rapidjson::Value&>(state_doc) = model::decision_state_to_json(d.next_state, state_doc.GetAllocator());
  EXPECT_EQ(model::parse_decision_state(state_doc), d.next_state);
  EXPECT_DOUBLE_EQ(state_doc["lastDemand"]["readReplicas"].GetDouble(), 2.8);
  EXPECT_EQ(state_doc["readySeconds"].GetInt64(), 200);
}

TEST(AdaptiveState, BadPersistedValuesAreRefused) {
  rapidjson::Document doc;
  doc.Parse(R"({"lastDemand":{"time":5,"readReplicas":-1}})");
  EXPECT_THROW(model::parse_decision_state(doc), model::InputError);
  doc.Parse(R"({"readySeconds":-3})");
  EXPECT_THROW(model::parse_decision_state(doc), model::InputError);
}

TEST(AdaptiveSpec, DefaultsItsWindowsAndSteps) {
  const auto spec = adaptive_spec();
  EXPECT_EQ(spec.behavior.policy, model::ScalingPolicy::Adaptive);
  EXPECT_EQ(spec.behavior.scale_up.stabilization_window_seconds, 0);
  EXPECT_EQ(spec.behavior.scale_up.step, 8);
  EXPECT_EQ(spec.behavior.scale_down.stabilization_window_seconds, 600);
  EXPECT_EQ(spec.behavior.scale_down.step, 8);  // the whole surplus at once
  EXPECT_DOUBLE_EQ(spec.behavior.adaptive.up_margin, 0);
  EXPECT_DOUBLE_EQ(spec.behavior.adaptive.down_hysteresis, 0.12);
}

// The ready time a rising overload is sized for: the DHA's own measurement, else the engine
// adapter's estimate (bounded), else the assumed 120 s. Baseline demand 2.8, up from 2.5 a minute
// ago (0.005 read replicas a second), max 20 so that no row is capped.
struct ReadyRow {
  const char* name;
  std::optional<std::int64_t> measured;
  std::optional<double> estimate;
  std::int64_t ready;    // the figure used
  std::int32_t desired;  // ceil((2.8 + 0.005 x ready) x 1.25) readers + the primary
  const char* origin;    // how the trace names where the figure comes from
};

class ReadyTimeTable : public ::testing::TestWithParam<ReadyRow> {};

DecideCase rising_case(const ReadyRow& row) {
  DecideCase c = adaptive_case();
  c.spec.max_replicas = 20;
  c.state.last_demand = model::Demand{c.now - 60, 2.5};
  c.state.ready_seconds = row.measured;
  c.obs.ready_estimate_seconds = row.estimate;
  return c;
}

TEST_P(ReadyTimeTable, SizesTheStepForIt) {
  const ReadyRow& row = GetParam();
  const DecideCase c = rising_case(row);
  const auto d = c.run();
  EXPECT_EQ(model::to_string(d.kind), model::to_string(DecisionKind::Scale));
  EXPECT_EQ(d.desired_replicas, row.desired) << d.message;
  EXPECT_EQ(decide::ready_time(c.spec, c.obs, c.state).seconds, row.ready);
  ASSERT_FALSE(d.trace.empty());
  EXPECT_EQ(d.trace.front().gate, "Adaptive");
  EXPECT_NE(d.trace.front().message.find(
                fmt::format("expected in {}s when new replicas are ready ({})", row.ready, row.origin)),
            std::string::npos)
      << d.trace.front().message;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

INSTANTIATE_TEST_SUITE_P(
    Rows, ReadyTimeTable,
    ::testing::Values(
        ReadyRow{"assumed_without_either", std::nullopt, std::nullopt, 120, 6,
                 "assumed: none measured or estimated yet"},
        // 2.8 + 3.0 = 5.8 expected: x 1.25 = 7.25 -> 8 readers, where 120 s asked for 5.
        ReadyRow{"a_large_estimate_gets_a_bigger_step", std::nullopt, 600.0, 600, 9, "estimated by the engine adapter"},
        ReadyRow{"a_small_estimate_a_smaller_one", std::nullopt, 20.0, 20, 5, "estimated by the engine adapter"},
        ReadyRow{"an_estimate_is_rounded", std::nullopt, 299.6, 300, 7, "estimated by the engine adapter"},
        ReadyRow{"the_measurement_wins_over_an_estimate", 120, 600.0, 120, 6, "measured on our last scale-up"},
        ReadyRow{"a_measurement_wins_over_a_small_estimate", 300, 20.0, 300, 7, "measured on our last scale-up"},
        // Bounded: not below 10 s, not beyond the convergence deadline (900 s by default).
        ReadyRow{"below_ten_seconds_is_ten", std::nullopt, 0.5, 10, 5, "estimated by the engine adapter"},
        ReadyRow{"beyond_the_deadline_is_the_deadline", std::nullopt, 1e9, 900, 11, "estimated by the engine adapter"},
        // Garbage is no estimate.
        ReadyRow{"nan_is_no_estimate", std::nullopt, kNaN, 120, 6, "assumed: none measured or estimated yet"},
        ReadyRow{"infinity_is_no_estimate", std::nullopt, kInf, 120, 6, "assumed: none measured or estimated yet"},
        ReadyRow{"negative_is_no_estimate", std::nullopt, -600.0, 120, 6, "assumed: none measured or estimated yet"},
        ReadyRow{"zero_is_no_estimate", std::nullopt, 0.0, 120, 6, "assumed: none measured or estimated yet"}),
    [](const auto& info) { return std::string(info.param.name); });

// The bound follows the spec's own convergence deadline.
TEST(ReadyTime, IsBoundedByTheConvergenceDeadline) {
  model::DhaSpec spec = adaptive_spec();
  spec.behavior.convergence_deadline_seconds = 240;
  EXPECT_EQ(decide::ready_time(spec, std::nullopt, 600.0),
            (decide::ReadyTime{240, decide::ReadyTime::Source::Estimated}));
  EXPECT_EQ(decide::ready_time(spec, std::nullopt, 200.0),
            (decide::ReadyTime{200, decide::ReadyTime::Source::Estimated}));
  // A measurement is the DHA's own: used as it is.
  EXPECT_EQ(decide::ready_time(spec, 600, 200.0), (decide::ReadyTime{600, decide::ReadyTime::Source::Measured}));
  EXPECT_EQ(decide::ready_time(spec, std::nullopt, std::nullopt), decide::ReadyTime{});
}

// A DHA that has measured its ready time decides exactly as it did before estimates existed,
// whatever the adapter estimates: same decision, same next state.
TEST(ReadyTime, AStoredMeasurementDecidesAsBefore) {
  for (const double estimate : {5.0, 60.0, 600.0, 5000.0, kNaN}) {
    DecideCase before = adaptive_case();
    before.state.last_demand = model::Demand{before.now - 60, 2.5};
    before.state.ready_seconds = 300;
    DecideCase now = before;
    now.obs.ready_estimate_seconds = estimate;
    const auto a = before.run();
    const auto b = now.run();
    EXPECT_EQ(b.desired_replicas, a.desired_replicas) << estimate;
    EXPECT_EQ(b.desired_replicas, 7) << estimate;  // the measured-ready-time row of the table above
    EXPECT_EQ(model::to_string(b.kind), model::to_string(a.kind));
    EXPECT_EQ(b.next_state, a.next_state) << estimate;
    ASSERT_EQ(b.trace.size(), a.trace.size());
    for (std::size_t i = 0; i < a.trace.size(); ++i) EXPECT_EQ(b.trace[i].message, a.trace[i].message);
  }
}

// The no-reversal rule looks as far ahead as a replica asked for again takes, plus the
// down-window (600 s): with the same figure.
TEST(ReadyTime, TheRisingHoldUsesTheEstimateToo) {
  DecideCase c = adaptive_case();
  c.current(6).load(225);  // 1.5, up from 1.47 a minute ago: 0.0005 read replicas a second
  c.state.last_demand = model::Demand{c.now - 60, 1.47};
  // 120 s: 1.5 + 0.0005 x 720 = 1.86 expected, two readers still serve it; the fall goes through.
  EXPECT_EQ(c.run().desired_replicas, 3);
  // 900 s: 1.5 + 0.0005 x 1500 = 2.25 would overload two readers; 3 readers (2.8 with headroom) held.
  c.obs.ready_estimate_seconds = 900;
  const auto d = c.run();
  EXPECT_EQ(d.desired_replicas, 4) << d.message;
  ASSERT_FALSE(d.trace.empty());
  EXPECT_EQ(d.trace.front().reason, "Rising");
  EXPECT_NE(d.trace.front().message.find("(a replica ready in 900s, estimated by the engine adapter, and the "
                                         "down-window)"),
            std::string::npos)
      << d.trace.front().message;
}

TEST(AdaptiveSpec, KeepsWhatTheSpecSays) {
  const auto spec = adaptive_spec(R"(,"scaleDown":{"stabilizationWindowSeconds":900},
      "adaptive":{"upMargin":0.2,"downHysteresis":0.3})");
  EXPECT_EQ(spec.behavior.scale_down.stabilization_window_seconds, 900);
  EXPECT_DOUBLE_EQ(spec.behavior.adaptive.up_margin, 0.2);
  EXPECT_DOUBLE_EQ(spec.behavior.adaptive.down_hysteresis, 0.3);
}

TEST(AdaptiveSpec, RefusesBadValues) {
  auto error = [](const std::string& behavior) {
    try {
      spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
          "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}],"behavior":)" +
                     behavior + "}");
    } catch (const model::InputError& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_EQ(error(R"({"policy":"Clever"})"),
            "spec.behavior.policy: unsupported value \"Clever\" (Windowed or Adaptive)");
  EXPECT_EQ(error(R"({"adaptive":{"downHysteresis":1}})"),
            "spec.behavior.adaptive.downHysteresis: must be a number in [0, 1)");
  EXPECT_EQ(error(R"({"adaptive":{"upMargin":-0.1}})"), "spec.behavior.adaptive.upMargin: must be a number in [0, 1)");
}

}  // namespace
}  // namespace dha::testing
