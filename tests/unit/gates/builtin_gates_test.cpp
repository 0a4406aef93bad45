// Gates called directly: what each says in the trace, independent of the rest of the chain.

#include <gtest/gtest.h>

#include "decide_test_support.hpp"
#include "dha/gates/builtin_gates.hpp"

namespace dha::testing {
namespace {

struct Fixture {
  model::DhaSpec spec = baseline_spec();
  model::Observation obs = baseline_observation();
  model::DecisionState state;
  gates::GateContext ctx() {
    gates::GateContext c{spec, obs, state};
    c.now = 10000;
    c.metrics_available = true;
    c.raw_desired = 4;
    c.quorum_floor = obs.quorum_floor;
    c.metrics_summary = "ReadConnections 210/150 per read replica";
    return c;
  }
};

TEST(StabilizationGateDirect, ScaleUpDampedByLowestRecommendation) {
  Fixture f;
  f.state.recommendations = {{9800, 5}, {9900, 4}, {9950, 6}};
  f.obs.current_replicas = 3;
  gates::Proposal p;
  p.replicas = 6;
  const auto note = gates::StabilizationGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, 4);
  EXPECT_EQ(note.reason, "Stabilized");
  EXPECT_EQ(note.message, "scale-up limited to 4 by the lowest recommendation in the last 300s");
}

TEST(StabilizationGateDirect, ScaleUpNeverBelowCurrent) {
  Fixture f;
  f.state.recommendations = {{9900, 2}};
  gates::Proposal p;
  p.replicas = 5;
  gates::StabilizationGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, 3);
}

TEST(StabilizationGateDirect, ScaleDownHeldByHighestRecommendation) {
  Fixture f;
  f.obs.current_replicas = 5;
  f.state.recommendations = {{9000, 4}, {9500, 3}};
  gates::Proposal p;
  p.replicas = 2;
  const auto note = gates::StabilizationGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, 4);
  EXPECT_EQ(note.message, "scale-down held at 4 by the highest recommendation in the last 1800s");
}

TEST(StabilizationGateDirect, ScaleDownNeverAboveCurrent) {
  Fixture f;
  f.obs.current_replicas = 4;
  f.state.recommendations = {{9000, 6}};
  gates::Proposal p;
  p.replicas = 2;
  gates::StabilizationGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, 4);
}

TEST(BoundsGateDirect, ReportsEveryClampInOrderAndKeepsTheLast) {
  Fixture f;
  f.spec.max_replicas = 4;
  f.obs.quorum_floor = 5;
  f.obs.quota_max_replicas = 5;
  gates::Proposal p;
  p.replicas = 9;
  const auto note = gates::BoundsGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, 5);
  EXPECT_EQ(p.natural, 5);
  EXPECT_EQ(note.reason, "QuorumFloor");
  EXPECT_EQ(note.message, "held at maxReplicas 4; held at quorum floor 5");
  EXPECT_EQ(p.limited_reason, "QuorumFloor");
}

TEST(BoundsGateDirect, MinIsNotLimited) {
  Fixture f;
  gates::Proposal p;
  p.replicas = 1;
  const auto note = gates::BoundsGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, 2);
  EXPECT_FALSE(p.limited);
  EXPECT_EQ(note.reason, "MinReplicas");
  EXPECT_EQ(note.message, "raised to minReplicas 2");
}

TEST(StepLimitGateDirect, QuorumExemptionOnlyUpward) {
  Fixture f;
  f.obs.quorum_floor = 5;
  gates::Proposal up;
  up.replicas = 6;
  auto note = gates::StepLimitGate().apply(up, f.ctx());
  EXPECT_EQ(up.replicas, 5);
  EXPECT_EQ(note.reason, "QuorumExemption");

  f.obs.current_replicas = 8;
  gates::Proposal down;
  down.replicas = 5;
  note = gates::StepLimitGate().apply(down, f.ctx());
  EXPECT_EQ(down.replicas, 7);
  EXPECT_EQ(note.reason, "StepLimited");
}

TEST(StepLimitGateDirect, HugeStepSaturates) {
  Fixture f;
  f.spec.behavior.scale_up.step = INT32_MAX;
  f.obs.current_replicas = INT32_MAX - 1;
  gates::Proposal p;
  p.replicas = INT32_MAX;
  gates::StepLimitGate().apply(p, f.ctx());
  EXPECT_EQ(p.replicas, INT32_MAX);
}

TEST(LagBrakeGateDirect, MessagesExplainThePass) {
  Fixture f;
  gates::Proposal p;
  p.replicas = 4;
  EXPECT_EQ(gates::LagBrakeGate().apply(p, f.ctx()).message, "no replication lag signal");
  f.obs.lag_seconds = 12.5;
  EXPECT_EQ(gates::LagBrakeGate().apply(p, f.ctx()).message, "replication lag 12.5s <= 30s");
  f.obs.lag_seconds = 45;
  f.obs.write_rate = 0;
  EXPECT_EQ(gates::LagBrakeGate().apply(p, f.ctx()).message, "replication lag 45s > 30s but no writes");
  f.obs.write_rate = 3;
  const auto note = gates::LagBrakeGate().apply(p, f.ctx());
  EXPECT_EQ(note.message, "replication lag above threshold with active writes (45s > 30s)");
  EXPECT_EQ(p.kind, gates::ProposalKind::Freeze);
  EXPECT_EQ(p.able_message, "replication lag above threshold with active writes");
}

TEST(ConvergenceGateDirect, InFlightMessageShowsProgress) {
  Fixture f;
  f.obs.available_replicas = 2;
  f.state.in_flight_since = 9880;
  gates::Proposal p;
  p.replicas = 4;
  const auto note = gates::ConvergenceGate().apply(p, f.ctx());
  EXPECT_EQ(note.reason, "ScaleInFlight");
  EXPECT_EQ(note.message, "scale in flight; waiting for convergence (2 of 3 available, 120s of 900s)");
  EXPECT_EQ(p.able_message, "scale in flight; waiting for convergence");
}

TEST(FailSafeGateDirect, PassExplainsTheRawRecommendation) {
  Fixture f;
  gates::Proposal p;
  p.replicas = 4;
  EXPECT_EQ(gates::FailSafeGate().apply(p, f.ctx()).message,
            "raw recommendation 4 from ReadConnections 210/150 per read replica");
}

}  // namespace
}  // namespace dha::testing
