// The simulator replays a load trace through decide(): check the dynamics it must show.

#include <gtest/gtest.h>

#include "decide_test_support.hpp"
#include "dha/simulate/simulation.hpp"
#include "dha/model/input_error.hpp"

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
               "lagSeconds, writeRate)"},
        BadCsv{"no_rows", "time,ReadConnections\n", "load.csv: has a header but no rows"},
        BadCsv{"not_a_number", "time,ReadConnections\n0,lots\n",
               "load.csv line 2: column ReadConnections: \"lots\" is not a number"},
        BadCsv{"cell_count", "time,ReadConnections\n0\n", "load.csv line 2: has 1 cells, header has 2"},
        BadCsv{"time_not_increasing", "time,ReadConnections\n0,1\n0,2\n",
               "load.csv line 3: column time: must increase strictly from row to row"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Simulation, SpikeScalesUpAfterProvisioningAndBackDownLater) {
  // 150 connections, a spike to 600 for 20 minutes, then quiet.
  const auto load = LoadTrace::parse_csv(
      "time,ReadConnections\n0,150\n600,150\n601,600\n1800,600\n1801,150\n7200,150\n");
  SimulationParams params;
  params.initial_replicas = 2;
  params.provision_seconds = 90;
  const auto r = decide::simulate(fast_spec(), load, params);
  EXPECT_EQ(r.summary.max_replicas, 6);
  EXPECT_EQ(r.summary.min_replicas, 2);
  EXPECT_EQ(r.summary.scale_actions, 7);  // 2 -> 6 one step at a time, then back down to 3
  EXPECT_EQ(r.summary.rollbacks, 0);
  EXPECT_GT(r.summary.seconds_above_target, 0);   // the spike outruns provisioning
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
  for (const char* label : {"capacity at target", "available", "needed (clairvoyant)", "min 2 / max 6",
                            "hours since the first decision"})
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
  EXPECT_EQ(s.overload_reaction, 60);      // until the first decision sees it
  EXPECT_EQ(s.overload_other, 59);         // the up-window
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
  EXPECT_EQ(r.summary.overload_held, 1800 - 60);
  EXPECT_EQ(r.summary.overload_reaction, 60);
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

}  // namespace
}  // namespace dha::testing
