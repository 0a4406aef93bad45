// The simulator replays a load trace through decide(): check the dynamics it must show.

#include <gtest/gtest.h>

#include "decide_test_support.hpp"
#include "dha/decide/simulation.hpp"
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
  const auto load = LoadTrace::parse_csv("time,ReadCPUUtilization\n0,1\n");
  EXPECT_THROW(decide::simulate(fast_spec(), load, SimulationParams{}), model::InputError);
}

TEST(Simulation, SvgHasBothPanelsAndLegend) {
  const auto load = LoadTrace::parse_csv("time,ReadConnections\n0,150\n3600,600\n");
  SimulationParams params;
  const auto r = decide::simulate(fast_spec(), load, params);
  const std::string svg = decide::render_svg(r, fast_spec(), load, params);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(std::count(svg.begin(), svg.end(), 'p') > 0, true);
  size_t polylines = 0;
  for (size_t pos = 0; (pos = svg.find("<polyline", pos)) != std::string::npos; ++pos) ++polylines;
  EXPECT_EQ(polylines, 4u);
  EXPECT_NE(svg.find("capacity at target"), std::string::npos);
  EXPECT_NE(svg.find("available"), std::string::npos);
}

}  // namespace
}  // namespace dha::testing
