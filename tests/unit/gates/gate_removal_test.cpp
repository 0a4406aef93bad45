// Every built-in gate matters: for each, a case whose decision changes when the chain is built
// without that gate. If a gate is dropped from GateChain::builtin(), its row fails.

#include <gtest/gtest.h>

#include <functional>

#include "decide_test_support.hpp"
#include "dha/gates/gate_chain.hpp"

namespace dha::testing {
namespace {

struct Outcome {
  std::string kind;
  std::int32_t desired;
  std::string reason;
  bool apply;
  bool operator==(const Outcome&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << o.kind << " " << o.desired << " " << o.reason << (o.apply ? " apply" : " no-apply");
}

Outcome outcome(const decide::Decision& d) {
  return {std::string(model::to_string(d.kind)), d.desired_replicas, d.reason, d.apply};
}

struct RemovalRow {
  const char* gate;
  std::function<void(DecideCase&)> setup;
  Outcome with_gate;
  Outcome without_gate;
};

class GateRemoval : public ::testing::TestWithParam<RemovalRow> {};

TEST_P(GateRemoval, DecisionChangesWithoutTheGate) {
  const auto& row = GetParam();
  DecideCase c;
  row.setup(c);
  const gates::GateChain full = gates::GateChain::builtin();
  const gates::GateChain reduced = full.without(row.gate);
  ASSERT_EQ(reduced.names().size() + 1, full.names().size()) << "no gate named " << row.gate;
  EXPECT_EQ(outcome(c.run(&full)), row.with_gate);
  EXPECT_EQ(outcome(c.run(&reduced)), row.without_gate);
}

INSTANTIATE_TEST_SUITE_P(Gates, GateRemoval,
                         ::testing::Values(RemovalRow{"FailSafe",
                                                      [](DecideCase& c) { c.obs.metrics.clear(); },
                                                      {"Freeze", 3, "MetricUnavailable", false},
                                                      {"NoChange", 3, "Ready", false}},
                                           RemovalRow{"QuorumVsQuota",
                                                      [](DecideCase& c) {
                                                        c.obs.quorum_floor = 3;
                                                        c.obs.quota_max_replicas = 2;
                                                      },
                                                      {"Freeze", 3, "QuorumExceedsQuota", false},
                                                      {"Scale", 2, "QuotaExceeded", true}},
                                           RemovalRow{"Convergence",
                                                      [](DecideCase& c) { c.obs.available_replicas = 2; },
                                                      {"Freeze", 3, "NotConverged", false},
                                                      {"Scale", 4, "Ready", true}},
                                           RemovalRow{"Health",
                                                      [](DecideCase& c) { c.obs.operational = false; },
                                                      {"Freeze", 3, "NotOperational", false},
                                                      {"Scale", 4, "Ready", true}},
                                           RemovalRow{"LagBrake",
                                                      [](DecideCase& c) { c.obs.lag_seconds = 100; },
                                                      {"Freeze", 3, "ReplicationLag", false},
                                                      {"Scale", 4, "Ready", true}},
                                           RemovalRow{"Stabilization",
                                                      [](DecideCase& c) {
                                                        c.state.recommendations = {{c.now - 60, 3}};
                                                      },
                                                      {"NoChange", 3, "Ready", false},
                                                      {"Scale", 4, "Ready", true}},
                                           RemovalRow{"Bounds",
                                                      [](DecideCase& c) { c.spec.max_replicas = 3; },
                                                      {"NoChange", 3, "AtLimit", false},
                                                      {"Scale", 4, "Ready", true}},
                                           RemovalRow{"StepLimit",
                                                      [](DecideCase& c) { c.load(900); },
                                                      {"Scale", 4, "AtLimit", true},
                                                      {"Scale", 6, "AtLimit", true}},
                                           RemovalRow{"Backoff",
                                                      [](DecideCase& c) {
                                                        c.state.backoff = model::Backoff{4, c.now + 100, 1};
                                                      },
                                                      {"Freeze", 3, "StuckScaling", false},
                                                      {"Scale", 4, "Ready", true}},
                                           RemovalRow{"Ownership",
                                                      [](DecideCase& c) { c.state.last_applied_replicas = 5; },
                                                      {"NoChange", 3, "OwnershipConflict", false},
                                                      {"Scale", 4, "OwnershipConflict", true}},
                                           RemovalRow{"DryRun",
                                                      [](DecideCase& c) { c.spec.dry_run = true; },
                                                      {"Scale", 4, "Ready", false},
                                                      {"Scale", 4, "Ready", true}}),
                         [](const auto& info) { return std::string(info.param.gate); });

// The same under the Adaptive policy: it shapes the proposal, every guardrail still decides. The
// 420 connections over 2 readers ask it for 5 (2.8 read replicas with 12% headroom -> 4 readers).
std::function<void(DecideCase&)> adaptive(std::function<void(DecideCase&)> setup) {
  return [setup](DecideCase& c) {
    c.spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
        "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}],"behavior":{"policy":"Adaptive"}})");
    setup(c);
  };
}

INSTANTIATE_TEST_SUITE_P(
    AdaptiveGates, GateRemoval,
    ::testing::Values(RemovalRow{"FailSafe",
                                 adaptive([](DecideCase& c) { c.obs.metrics.clear(); }),
                                 {"Freeze", 3, "MetricUnavailable", false},
                                 {"NoChange", 3, "Ready", false}},
                      RemovalRow{"QuorumVsQuota",
                                 adaptive([](DecideCase& c) {
                                   c.obs.quorum_floor = 3;
                                   c.obs.quota_max_replicas = 2;
                                 }),
                                 {"Freeze", 3, "QuorumExceedsQuota", false},
                                 {"Scale", 2, "QuotaExceeded", true}},
                      RemovalRow{"Convergence",
                                 adaptive([](DecideCase& c) { c.obs.available_replicas = 2; }),
                                 {"Freeze", 3, "NotConverged", false},
                                 {"Scale", 5, "Ready", true}},
                      RemovalRow{"Health",
                                 adaptive([](DecideCase& c) { c.obs.operational = false; }),
                                 {"Freeze", 3, "NotOperational", false},
                                 {"Scale", 5, "Ready", true}},
                      RemovalRow{"LagBrake",
                                 adaptive([](DecideCase& c) { c.obs.lag_seconds = 100; }),
                                 {"Freeze", 3, "ReplicationLag", false},
                                 {"Scale", 5, "Ready", true}},
                      RemovalRow{"Stabilization",
                                 adaptive([](DecideCase& c) {
                                   c.current(4).load(225);  // 1.5 read replicas: 3 would do, but 4 was needed 300 s ago
                                   c.state.recommendations = {{c.now - 300, 4}};
                                 }),
                                 {"NoChange", 4, "Ready", false},
                                 {"Scale", 3, "Ready", true}},
                      RemovalRow{"Bounds",
                                 adaptive([](DecideCase& c) { c.spec.max_replicas = 4; }),
                                 {"Scale", 4, "AtLimit", true},
                                 {"Scale", 5, "Ready", true}},
                      // Adaptive falls by the whole surplus; a down step set in the spec is the StepLimit's to keep.
                      RemovalRow{"StepLimit",
                                 adaptive([](DecideCase& c) {
                                   c.current(6).load(0);
                                   c.spec.behavior.scale_down.step = 1;
                                 }),
                                 {"Scale", 5, "Ready", true},
                                 {"Scale", 2, "Ready", true}},
                      RemovalRow{"Backoff",
                                 adaptive([](DecideCase& c) {
                                   c.state.backoff = model::Backoff{5, c.now + 100, 1};
                                 }),
                                 {"Freeze", 3, "StuckScaling", false},
                                 {"Scale", 5, "Ready", true}},
                      RemovalRow{"Ownership",
                                 adaptive([](DecideCase& c) { c.state.last_applied_replicas = 5; }),
                                 {"NoChange", 3, "OwnershipConflict", false},
                                 {"Scale", 5, "OwnershipConflict", true}},
                      RemovalRow{"DryRun",
                                 adaptive([](DecideCase& c) { c.spec.dry_run = true; }),
                                 {"Scale", 5, "Ready", false},
                                 {"Scale", 5, "Ready", true}}),
    [](const auto& info) { return std::string(info.param.gate); });

TEST(GateChain, BuiltinOrderIsFixed) {
  const std::vector<std::string> expected = {"FailSafe", "QuorumVsQuota", "Convergence", "Health",
                                             "LagBrake", "Stabilization", "Bounds",      "StepLimit",
                                             "Backoff",  "Ownership",     "DryRun"};
  EXPECT_EQ(gates::GateChain::builtin().names(), expected);
}

TEST(GateChain, TraceLinksEachGatesOutputToTheNextInput) {
  DecideCase c;
  c.load(900);
  const auto d = c.run();
  ASSERT_EQ(d.trace.size(), 11u);
  EXPECT_EQ(d.trace.front().in, 7);
  for (std::size_t i = 1; i < d.trace.size(); ++i) EXPECT_EQ(d.trace[i].in, d.trace[i - 1].out) << i;
  EXPECT_EQ(d.trace.back().out, 4);
  EXPECT_EQ(d.trace[6].gate, "Bounds");
  EXPECT_EQ(d.trace[6].reason, "AtLimit");
  EXPECT_EQ(d.trace[6].message, "held at maxReplicas 6");
  EXPECT_EQ(d.trace[7].reason, "StepLimited");
  EXPECT_EQ(d.trace[7].message, "scale-up step 1 per cycle");
}

TEST(GateChain, TraceStopsAtAFreeze) {
  DecideCase c;
  c.obs.operational = false;
  const auto d = c.run();
  ASSERT_EQ(d.trace.size(), 4u);
  EXPECT_EQ(d.trace.back().gate, "Health");
  EXPECT_EQ(d.trace.back().in, 4);
  EXPECT_EQ(d.trace.back().out, 3);
  EXPECT_EQ(d.trace.back().reason, "NotOperational");
}

TEST(GateChain, RollbackSkipsShapingGatesButNotTheWritePath) {
  DecideCase c;
  c.obs.available_replicas = 2;
  c.state.in_flight_since = c.now - 901;
  c.state.last_converged_replicas = 2;
  const auto d = c.run();
  std::vector<std::string> gates;
  for (const auto& e : d.trace) gates.push_back(e.gate);
  EXPECT_EQ(gates, (std::vector<std::string>{"FailSafe", "QuorumVsQuota", "Convergence", "Ownership", "DryRun"}));
}

}  // namespace
}  // namespace dha::testing
