// The simulator replays a load trace through decide(): check the dynamics it must show.

#include <gtest/gtest.h>

#include "decide_test_support.hpp"
#include "dha/decide/seasonal_forecast.hpp"
#include "dha/model/input_error.hpp"
#include "dha/simulate/load_generator.hpp"
#include "dha/simulate/simulation.hpp"

namespace dha::testing {
namespace {

using decide::LoadTrace;
using decide::SimulationParams;

model::DhaSpec fast_spec() {
  return spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],
      "behavior":{"scaleUp":{"stabilizationWindowSeconds":60},"scaleDown":{"stabilizationWindowSeconds":300},
                  "convergenceDeadlineSeconds":300}})");
}

TEST(LoadTraceCsv, InterpolatesLinearlyAndHoldsAtTheEnds) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections,lagSeconds\n0,100,\n100,200,5\n");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", -5), 100);
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 50), 150);
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 500), 200);
  EXPECT_FALSE(t.at("lagSeconds", 50));  // empty cell starts the segment: no signal
  EXPECT_DOUBLE_EQ(*t.at("lagSeconds", 100), 5);
  EXPECT_FALSE(t.at("writeRate", 50));
}

struct BadCsv {
  const char* name;
  const char* text;
  const char* error;
};

class LoadTraceErrors : public ::testing::TestWithParam<BadCsv> {};

TEST_P(LoadTraceErrors, NameTheLineAndColumn) {
  try {
    LoadTrace::parse_csv(GetParam().text, "load.csv");
    FAIL() << "parsed";
  } catch (const model::InputError& e) {
    EXPECT_EQ(std::string(e.what()), GetParam().error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LoadTraceErrors,
    ::testing::Values(
        BadCsv{"empty", "", "load.csv: empty (a header row with \"time\" is required)"},
        BadCsv{"no_time", "t,ReadConnections\n", "load.csv line 1: header has no \"time\" column"},
        BadCsv{"unknown_column", "time,Reads\n",
               "load.csv line 1: unknown column \"Reads\" (expected time, ReadConnections, ReadCPUUtilization, "
               "lagSeconds, writeRate, readyEstimateSeconds)"},
        BadCsv{"no_rows", "time,ReadConnections\n", "load.csv: has a header but no rows"},
        BadCsv{"not_a_number", "time,ReadConnections\n0,lots\n",
               "load.csv line 2: column ReadConnections: \"lots\" is not a number"},
        BadCsv{"cell_count", "time,ReadConnections\n0\n", "load.csv line 2: has 1 cells, header has 2"},
        BadCsv{"time_not_increasing", "time,ReadConnections\n0,1\n0,2\n",
               "load.csv line 3: column time: must increase strictly from row to row"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Simulation, SpikeScalesUpAfterProvisioningAndBackDownLater) {
  // 150 connections, a spike to 600 for 20 minutes, then quiet.
  const auto load =
      LoadTrace::parse_csv("time,ReadConnections\n0,150\n600,150\n601,600\n1800,600\n1801,150\n7200,150\n");
  SimulationParams params;
  params.initial_replicas = 2;
  params.provision_seconds = 90;
  const auto r = decide::simulate(fast_spec(), load, params);
  EXPECT_EQ(r.summary.max_replicas, 6);
  EXPECT_EQ(r.summary.min_replicas, 2);
  EXPECT_EQ(r.summary.scale_actions, 7);  // 2 -> 6 one step at a time, then back down to 3
  EXPECT_EQ(r.summary.rollbacks, 0);
  EXPECT_GT(r.summary.seconds_above_target, 0);  // the spike outruns provisioning
  EXPECT_LT(r.summary.seconds_above_target, 1800);
  EXPECT_EQ(r.steps.back().current_replicas, 3);  // 150 over 2 readers at target 100: 1 primary + 2
  // Waits for each replica: a scale never follows another before convergence.
  EXPECT_TRUE(r.summary.freezes_by_reason.count("ScaleInFlight"));
}

TEST(Simulation, MetricOutageFreezesInsteadOfScalingDown) {
  const auto load = LoadTrace::parse_csv("time,ReadConnections\n0,400\n300,\n900,400\n1200,400\n");
  SimulationParams params;
  params.initial_replicas = 5;
  params.provision_seconds = 0;
  const auto r = decide::simulate(fast_spec(), load, params);
  EXPECT_EQ(r.summary.freezes_by_reason.at("MetricUnavailable"), 10);  // 300..840 every 60 s
  for (const auto& s : r.steps) EXPECT_GE(s.current_replicas, 5) << s.time;
}

TEST(Simulation, ReplicaThatNeverArrivesIsRolledBackAndBackedOff) {
  const auto load = LoadTrace::parse_csv("time,ReadConnections\n0,250\n10800,250\n");
  SimulationParams params;
  params.initial_replicas = 2;
  params.provision_seconds = 100000;  // never within the deadline
  const auto r = decide::simulate(fast_spec(), load, params);
  EXPECT_GE(r.summary.rollbacks, 2);
  EXPECT_TRUE(r.summary.freezes_by_reason.count("StuckScaling"));
  // Backoff doubles: later re-attempts are further apart than the first.
  std::vector<std::int64_t> rollback_times;
  for (const auto& s : r.steps)
    if (s.kind == model::DecisionKind::Rollback) rollback_times.push_back(s.time);
  ASSERT_GE(rollback_times.size(), 3u);
  EXPECT_GT(rollback_times[2] - rollback_times[1], rollback_times[1] - rollback_times[0]);
}

TEST(Simulation, LagWithWritesBrakesScaling) {
  const auto load = LoadTrace::parse_csv("time,ReadConnections,lagSeconds,writeRate\n0,600,60,10\n1800,600,60,10\n");
  SimulationParams params;
  const auto r = decide::simulate(fast_spec(), load, params);
  EXPECT_EQ(r.summary.scale_actions, 0);
  EXPECT_EQ(r.summary.freezes_by_reason.at("ReplicationLag"), 31);
}

TEST(Simulation, RejectsTraceWithoutTheSpecMetric) {
  const auto load = LoadTrace::parse_csv("time,ReadCPUUtilization\n0,1\n60,1\n");
  EXPECT_THROW(decide::simulate(fast_spec(), load, SimulationParams{}), model::InputError);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = 0; (pos = text.find(what, pos)) != std::string::npos; ++pos) ++n;
  return n;
}

TEST(Simulation, SvgShowsNeedLimitsAndLabelledRoundTicks) {
  const auto load = LoadTrace::parse_csv("time,ReadConnections\n0,150\n21600,600\n");
  SimulationParams params;
  const auto r = decide::simulate(fast_spec(), load, params);
  const std::string svg = decide::render_svg(r, fast_spec(), load, params);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  // load, capacity, the ceiling, the floor, the need, replicas, available
  EXPECT_EQ(count(svg, "<polyline"), 7u);
  for (const char* label :
       {"capacity at target", "available", "needed (clairvoyant)", "min 2 / max 6", "hours since the first decision"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  // Six hours: a tick every hour, labelled 0..6, never 0.8 or 1.7.
  for (const char* tick : {">0</text>", ">1</text>", ">6</text>"}) EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_EQ(svg.find(">1.0h<"), std::string::npos);
}

TEST(Simulation, SvgMarksOutagesLagAndFreezesInsteadOfDrawingZero) {
  const auto load = LoadTrace::parse_csv(
      "time,ReadConnections,lagSeconds,writeRate\n0,300,1,5\n600,,1,5\n1200,300,60,5\n1800,300,60,5\n2400,300,1,5\n");
  SimulationParams params;
  params.initial_replicas = 4;
  const auto r = decide::simulate(fast_spec(), load, params);
  const std::string svg = decide::render_svg(r, fast_spec(), load, params);
  for (const char* label : {"metric outage", "lag above limit, writes", "frozen: MetricUnavailable",
                            "frozen: ReplicationLag", "minutes since the first decision"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  // The load line is broken by the outage, not drawn down to 0 and back.
  EXPECT_EQ(count(svg, "<polyline fill=\"none\" stroke=\"#d62728\""), 2u);
}

// Load 90 (one reader at target 100 is enough), then 180 from 601 s: two readers are needed.
const char* kStepUp = "time,ReadConnections\n0,90\n600,90\n601,180\n3600,180\n";

TEST(SimulationLedger, SplitsOverloadByCause) {
  SimulationParams params;
  params.initial_replicas = 2;
  params.provision_seconds = 90;
  const auto r = decide::simulate(fast_spec(), LoadTrace::parse_csv(kStepUp), params);
  const auto& s = r.summary;
  // Seen at 660, confirmed by the 60 s up-window at 720, ready at 810.
  EXPECT_EQ(s.seconds_above_target, 209);
  EXPECT_EQ(s.overload_reaction, 59);      // 601..659: until the first decision sees it
  EXPECT_EQ(s.overload_other, 60);         // 660..719: the decision at 660 saw it and waited
  EXPECT_EQ(s.overload_provisioning, 90);  // the replica starting
  EXPECT_EQ(s.overload_unavoidable, 0);
  EXPECT_EQ(s.overload_held, 0);
  EXPECT_EQ(s.overload_unavoidable + s.overload_provisioning + s.overload_reaction + s.overload_held + s.overload_other,
            s.seconds_above_target);
}

TEST(SimulationLedger, BoundIsTheNeedAtEachSecond) {
  SimulationParams params;
  const auto r = decide::simulate(fast_spec(), LoadTrace::parse_csv(kStepUp), params);
  EXPECT_EQ(r.summary.bound_replica_seconds, 601 * 2 + (3600 - 601) * 3);
}

TEST(SimulationLedger, BoundRespectsTheQuorumFloor) {
  SimulationParams params;
  params.quorum_floor = 4;
  params.initial_replicas = 4;
  const auto r = decide::simulate(fast_spec(), LoadTrace::parse_csv(kStepUp), params);
  EXPECT_EQ(r.summary.bound_replica_seconds, 3600 * 4);
  EXPECT_EQ(r.summary.min_replicas, 4);
}

TEST(SimulationLedger, BeyondTheMaximumIsUnavoidable) {
  SimulationParams params;
  params.initial_replicas = 6;
  const auto r = decide::simulate(fast_spec(), LoadTrace::parse_csv("time,ReadConnections\n0,900\n600,900\n"), params);
  EXPECT_EQ(r.summary.seconds_above_target, 600);
  EXPECT_EQ(r.summary.overload_unavoidable, 600);
}

TEST(SimulationLedger, OverloadUnderTheLagBrakeIsHeld) {
  // 300 needs 3 readers, within the maximum: only the brake keeps them away.
  const auto load = LoadTrace::parse_csv("time,ReadConnections,lagSeconds,writeRate\n0,300,60,10\n1800,300,60,10\n");
  const auto r = decide::simulate(fast_spec(), load, SimulationParams{});
  EXPECT_EQ(r.summary.overload_held, 1800);  // the first decision saw it too, and was held
  EXPECT_EQ(r.summary.overload_reaction, 0);
}

// An overload that is there when a decision is made is that decision's: never "reaction", which
// is only for what began between two decisions.
TEST(SimulationLedger, AnOverloadPresentAtADecisionInstantIsNotReaction) {
  // The step lands exactly on the decision at 600: the Windowed policy's up-window makes it wait.
  const auto at_decision = decide::simulate(
      fast_spec(), LoadTrace::parse_csv("time,ReadConnections\n0,90\n599,90\n600,180\n3600,180\n"), SimulationParams{});
  EXPECT_EQ(at_decision.summary.overload_reaction, 0);
  EXPECT_GT(at_decision.summary.overload_other, 0);
  // Half a cycle later: the 30 s before the next decision are reaction, and no more.
  const auto between = decide::simulate(
      fast_spec(), LoadTrace::parse_csv("time,ReadConnections\n0,90\n629,90\n630,180\n3600,180\n"), SimulationParams{});
  EXPECT_EQ(between.summary.overload_reaction, 30);
}

// Nobody knows what a database needed while its metric was missing: the bound leaves those
// seconds out, and the ratio compares it with the cost of the same seconds.
TEST(SimulationLedger, TheBoundIsUnknownDuringAnOutage) {
  const auto load = LoadTrace::parse_csv("time,ReadConnections\n0,150\n3600,\n10800,150\n14400,150\n");
  SimulationParams params;
  params.initial_replicas = 3;
  const auto r = decide::simulate(fast_spec(), load, params);
  EXPECT_EQ(r.summary.bound_unknown_seconds, 10800 - 3600);
  EXPECT_EQ(r.summary.bound_replica_seconds, (3600 + 3600) * 3);  // 150 at target 100: 2 readers
  EXPECT_EQ(r.summary.replica_seconds_bound_known + 7200 * 3, r.summary.replica_seconds);
}

// The clairvoyant bound is a lower bound only for a policy that serves the load: one that runs
// short of the need pays for fewer replicas than the bound, and its ratio used to read as cheaper
// than the bound (0.94x on the ramp below). The shortfall is the replica-seconds below the need,
// second by second, and the ratio counts it as spent, so no row can be below 1.
struct BoundRow {
  const char* name;
  decide::LoadFamily family;
  std::uint64_t seed;
  const char* behavior;
  std::int32_t max_replicas;
  const char* target;
  std::int32_t quorum_floor;
  bool spends_less_than_the_bound;  // the old ratio was below 1 here
  std::int64_t shortfall;           // -1: only checked against the per-second count
};

void PrintTo(const BoundRow& row, std::ostream* os) { *os << row.name; }

class SimulationBound : public ::testing::TestWithParam<BoundRow> {};

TEST_P(SimulationBound, SpentPlusShortfallIsNeverBelowTheBound) {
  const auto& row = GetParam();
  const auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":)" + std::to_string(row.max_replicas) +
                                   R"(,"metrics":[{"type":"ReadConnections","target":{"averageValue":")" + row.target +
                                   R"("}}],"behavior":)" + row.behavior + "}");
  const auto load = LoadTrace::parse_csv(decide::generate_load_csv(row.family, row.seed));
  SimulationParams params;
  params.initial_replicas = 2;
  params.quorum_floor = row.quorum_floor;
  const auto r = decide::simulate(spec, load, params);
  const auto& s = r.summary;

  // The shortfall, counted here from the timeline: each second has the replicas its cycle's
  // decision left (desired if applied, else current), against the need at that second.
  const std::int32_t ceiling = row.max_replicas;
  const std::int32_t floor = std::min(std::max(2, row.quorum_floor), ceiling);
  std::int64_t short_of_need = 0, need_total = 0;
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    const auto& step = r.steps[i];
    const std::int32_t replicas = step.applied ? step.desired_replicas : step.current_replicas;
    const std::int64_t next = std::min(step.time + 60, static_cast<std::int64_t>(load.end()));
    for (std::int64_t t = step.time; t < next; ++t) {
      const auto need = decide::needed_replicas(spec, load, static_cast<double>(t), 1, floor, ceiling);
      ASSERT_TRUE(need);
      need_total += *need;
      short_of_need += std::max(*need - replicas, 0);
    }
  }
  EXPECT_EQ(s.bound_replica_seconds, need_total);
  EXPECT_EQ(s.shortfall_replica_seconds, short_of_need);
  if (row.shortfall >= 0) {
    EXPECT_EQ(s.shortfall_replica_seconds, row.shortfall);
  }
  EXPECT_EQ(s.replica_seconds_bound_known < s.bound_replica_seconds, row.spends_less_than_the_bound)
      << s.replica_seconds_bound_known << " vs " << s.bound_replica_seconds;
  EXPECT_GE(decide::bound_ratio(s), 1.0);
  EXPECT_DOUBLE_EQ(decide::bound_ratio(s),
                   static_cast<double>(s.replica_seconds_bound_known + s.shortfall_replica_seconds) /
                       static_cast<double>(s.bound_replica_seconds));
}

constexpr const char* kWindowed = R"({"policy":"Windowed"})";
constexpr const char* kHpa = R"({"policy":"Windowed","tolerance":0.1,
    "scaleUp":{"stabilizationWindowSeconds":0,"step":1000},"scaleDown":{"stabilizationWindowSeconds":300,"step":1000}})";
constexpr const char* kAdaptive = R"({"policy":"Adaptive"})";

INSTANTIATE_TEST_SUITE_P(
    Families, SimulationBound,
    ::testing::Values(
        // The reproduction: `simulate --generate ramp-lag` through min 2, max 10, target 100. The
        // lag brake holds the count below the need for most of the bulk write.
        BoundRow{"ramp_lag_windowed", decide::LoadFamily::RampLag, 1, kWindowed, 10, "100", 1, true, -1},
        BoundRow{"ramp_lag_hpa", decide::LoadFamily::RampLag, 1, kHpa, 10, "100", 1, true, 13403},
        BoundRow{"ramp_lag_adaptive", decide::LoadFamily::RampLag, 1, kAdaptive, 10, "100", 1, false, -1},
        BoundRow{"noisy_plateau_windowed", decide::LoadFamily::NoisyPlateau, 2, kWindowed, 8, "150", 1, true, -1},
        BoundRow{"diurnal_day_hpa", decide::LoadFamily::Diurnal, 2, kHpa, 8, "150", 1, false, -1},
        BoundRow{"flash_crowd_adaptive", decide::LoadFamily::FlashCrowd, 2, kAdaptive, 8, "150", 1, false, -1},
        // Started at minReplicas below a quorum floor of 4 that the load never exceeds (at most 3
        // read replicas at 200): the first decision lifts the count to the floor at once, as the
        // operator's first decision on such a database does, so no second is short of it.
        BoundRow{"below_the_quorum_floor_at_the_start", decide::LoadFamily::NoisyPlateau, 2, kWindowed, 8, "200", 4,
                 false, 0}),
    [](const auto& info) { return std::string(info.param.name); });

// The forecast never reads a row at or after the decision's own time, however long the
// down-window makes its horizon: a spike in no earlier day is not foreseen.
TEST(SimulationPredictive, TheForecastDoesNotSeeTheFuture) {
  std::string csv = "time,ReadConnections\n";
  for (std::int64_t t = 0; t <= 3 * 86400; t += 60) {
    const bool spike = t >= 2 * 86400 + 43200 && t < 2 * 86400 + 46800;  // day 3, noon to 13:00 only
    csv += std::to_string(t) + "," + (spike ? "700" : "150") + "\n";
  }
  const auto load = LoadTrace::parse_csv(csv);
  const auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],
      "behavior":{"policy":"Adaptive","adaptive":{"predictive":true},
                  "scaleDown":{"stabilizationWindowSeconds":172800}}})");
  const std::int64_t spike = 2 * 86400 + 43200;
  // The forecast just before the spike is the quiet days' 1.5 read replicas.
  const auto f = decide::seasonal_forecast(spec, load, spike - 180, decide::forecast_horizon(spec, 120, 60));
  ASSERT_TRUE(f);
  EXPECT_LT(f->read_replicas, 2.0);
  SimulationParams params;
  params.initial_replicas = 3;
  params.start_at = 86400;
  const auto r = decide::simulate(spec, load, params);
  for (const auto& s : r.steps) {
    if (s.time >= spike) break;
    EXPECT_FALSE(s.applied && s.desired_replicas > s.current_replicas) << "scaled up at " << s.time;
  }
}

// The predictive policy's figures on three weeks of office load (weekdays and weekends, a one-off
// crowd on day 8, a holiday on day 17; two weeks of history, the third decided; docs/decide.md),
// on every seed the docs report: no more actions than the reactive default, at most 1.3x the
// bound, never overloaded for want of asking, and at most a tenth of the default's overloaded
// seconds. (Seed 4 missed the tenth, 113 s against 976, while the margin was only the spread of
// two weekly references that happened to agree: 2.98 read replicas with it on a Saturday morning
// whose readings jumped past 3.)
TEST(SimulationPredictive, ThreeWeeksTakeNoMoreActionsThanTheDefault) {
  auto spec_for = [](const std::string& behavior) {
    return spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
        "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}],"behavior":)" +
                          behavior + "}");
  };
  SimulationParams params;
  params.start_at = 14 * decide::kSecondsPerDay;
  params.initial_replicas = 4;
  // A new DHA, as `simulate` and the operator start one (the windows count from the first
  // observation; with no up-window, from a second before it), so that these are the docs' figures.
  params.initial_state = [](std::int32_t replicas, std::int64_t now) {
    model::DecisionState state;
    state.recommendations.push_back({now - 1, replicas});
    return state;
  };
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE(seed);
    const auto load = LoadTrace::parse_csv(decide::generate_load_csv(decide::LoadFamily::WeeklyHoliday, seed));
    const auto adaptive = decide::simulate(spec_for(R"({"policy":"Adaptive"})"), load, params).summary;
    const auto predictive =
        decide::simulate(spec_for(R"({"policy":"Adaptive","adaptive":{"predictive":true}})"), load, params).summary;
    EXPECT_LE(predictive.scale_actions, adaptive.scale_actions);
    EXPECT_EQ(predictive.overload_other, 0);
    EXPECT_LE(predictive.seconds_above_target * 10, adaptive.seconds_above_target);
    EXPECT_LE(decide::bound_ratio(predictive), 1.3);
  }
}

// The lag brake holds every move while the lag is above its limit and writes run, whatever the
// policy asks for: on the generated ramp with a bulk write, under the default a new DHA gets.
TEST(SimulationAdaptive, TheLagBrakeHoldsEveryMoveDuringALagEpisode) {
  const auto load = LoadTrace::parse_csv(decide::generate_load_csv(decide::LoadFamily::RampLag, 2));
  const auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}],"behavior":{"policy":"Adaptive"}})");
  const auto r = decide::simulate(spec, load, SimulationParams{});
  int braked = 0;
  for (const auto& s : r.steps) {
    if (!(s.lag_seconds && *s.lag_seconds > 30 && s.write_rate && *s.write_rate > 0)) continue;
    ++braked;
    EXPECT_FALSE(s.applied) << "moved at " << s.time;
    // Waiting for a replica asked for before the lag rose is a freeze too, of the gate before it.
    EXPECT_TRUE(s.reason == "ReplicationLag" || s.reason == "ScaleInFlight") << s.time << ": " << s.reason;
  }
  EXPECT_GT(braked, 60);  // the episode is long enough to matter
}

TEST(SimulationAdaptive, MeetsAStepInOneMoveAndIsOverloadedOnlyWhileProvisioning) {
  const auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],"behavior":{"policy":"Adaptive"}})");
  SimulationParams params;
  params.initial_replicas = 2;
  params.provision_seconds = 90;
  const auto r = decide::simulate(spec, LoadTrace::parse_csv(kStepUp), params);
  EXPECT_EQ(r.summary.scale_actions, 1);
  EXPECT_EQ(r.summary.overload_other, 0);
  EXPECT_EQ(r.summary.seconds_above_target, 750 - 601);  // seen at 660, ready at 750
}

// A trace's readyEstimateSeconds column is the observation's: before a scale-up has been measured,
// a growing overload is met with the step its estimated ready time asks for.
TEST(SimulationAdaptive, SizesTheFirstStepForTheTracesReadyEstimate) {
  const auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],"behavior":{"policy":"Adaptive"}})");
  SimulationParams params;
  params.initial_replicas = 3;
  // A minute before the trace the demand was 2.25 read replicas; at its start, 2.5 and growing.
  params.initial_state = [](std::int32_t, std::int64_t now) {
    model::DecisionState state;
    state.last_demand = model::Demand{now - 60, 2.25};
    return state;
  };
  const auto first_step = [&](const std::string& estimate_column) {
    const std::string csv = "time,ReadConnections" + estimate_column + "\n0,250,600\n600,250,600\n";
    for (const auto& step : decide::simulate(spec, LoadTrace::parse_csv(csv), params).steps)
      if (step.applied) return step.desired_replicas;
    return 0;
  };
  // 120 s assumed: 2.5 + 0.5 = 3.0 expected, / 0.88 -> 4 readers; 600 s: 5.0 expected -> 6 readers.
  EXPECT_EQ(first_step(",ReadCPUUtilization"), 5);  // a column the spec does not read
  EXPECT_EQ(first_step(",readyEstimateSeconds"), 7);
}

// The figures the new default must win, on the generated families (seed 2, target 150 per read
// replica, 2..8 instances, replicas ready in 120 s, a decision a minute; docs/decide.md): never
// overloaded for want of asking, at most 1.25x the bound, and no more actions than the HPA-style
// behaviour or 1.5x the Windowed policy's.
TEST(SimulationAdaptive, TheDefaultMeetsItsTargetsOnTheGeneratedFamilies) {
  auto spec_for = [](const std::string& behavior) {
    return spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
        "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}],"behavior":)" +
                          behavior + "}");
  };
  const auto adaptive = spec_for(R"({"policy":"Adaptive"})");
  const auto windowed = spec_for("{}");
  const auto hpa = spec_for(R"({"tolerance":0.1,"scaleUp":{"stabilizationWindowSeconds":0,"step":1000},
      "scaleDown":{"stabilizationWindowSeconds":300,"step":1000}})");
  for (auto family : {decide::LoadFamily::Diurnal, decide::LoadFamily::FlashCrowd, decide::LoadFamily::RampLag,
                      decide::LoadFamily::NoisyPlateau}) {
    SCOPED_TRACE(static_cast<int>(family));
    const auto load = LoadTrace::parse_csv(decide::generate_load_csv(family, 2));
    const auto a = decide::simulate(adaptive, load, SimulationParams{}).summary;
    const auto w = decide::simulate(windowed, load, SimulationParams{}).summary;
    const auto h = decide::simulate(hpa, load, SimulationParams{}).summary;
    EXPECT_EQ(a.overload_other, 0);
    EXPECT_LE(decide::bound_ratio(a), 1.25);
    EXPECT_LE(a.scale_actions, h.scale_actions);
    EXPECT_LE(a.scale_actions, 1.5 * w.scale_actions);
  }
}

}  // namespace
}  // namespace dha::testing
