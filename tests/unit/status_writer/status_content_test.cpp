#include <gtest/gtest.h>

#include "dha/status_writer/decision_status.hpp"
#include "dha/status_writer/event_messages.hpp"
#include "dha/status_writer/unpersisted_state.hpp"

namespace dha::status {
namespace {

using model::DecisionKind;

decide::Decision decision(DecisionKind kind, int current, int desired, bool limited = false) {
  decide::Decision d;
  d.kind = kind;
  d.current_replicas = current;
  d.desired_replicas = desired;
  d.limited = limited;
  d.message = limited ? "held at maxReplicas 4" : "scale";
  d.metrics.push_back({model::MetricType::ReadConnections, 210, 150, 4});
  return d;
}

model::DhaStatus status_with_desired(int desired) {
  model::DhaStatus s;
  s.desired_replicas = desired;
  s.last_decision = model::LastDecision{};
  return s;
}

TEST(MetricsSummary, OneEntryPerMetricWithAverageAndTarget) {
  auto d = decision(DecisionKind::Scale, 3, 4);
  d.metrics.push_back({model::MetricType::ReadCPUUtilization, 250.5, 500, 3});
  EXPECT_EQ(metrics_summary(d), "ReadConnections 210/150, ReadCPUUtilization 250.50/500");
}

TEST(DryRunEvent, Table) {
  model::DhaSpec dry;
  dry.dry_run = true;
  model::DhaSpec live;
  struct Case {
    const char* name;
    const model::DhaSpec& spec;
    decide::Decision d;
    model::DhaStatus previous;
    std::string expected;
  };
  const Case cases[] = {
      {"first would-be scale", dry, decision(DecisionKind::Scale, 3, 4), model::DhaStatus{},
       "would scale 3 -> 4: ReadConnections 210/150"},
      {"would-be count changed", dry, decision(DecisionKind::Scale, 3, 4), status_with_desired(3),
       "would scale 3 -> 4: ReadConnections 210/150"},
      {"same would-be count again: silent", dry, decision(DecisionKind::Scale, 3, 4), status_with_desired(4), ""},
      {"limited says why", dry, decision(DecisionKind::Scale, 3, 4, true), status_with_desired(3),
       "would scale 3 -> 4: held at maxReplicas 4"},
      {"no change: silent", dry, decision(DecisionKind::NoChange, 3, 3), model::DhaStatus{}, ""},
      {"freeze: silent", dry, decision(DecisionKind::Freeze, 3, 3), model::DhaStatus{}, ""},
      {"not a dry run: silent", live, decision(DecisionKind::Scale, 3, 4), model::DhaStatus{}, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(dry_run_event_message(c.spec, c.d, c.previous), c.expected);
  }
  auto rollback = decision(DecisionKind::Rollback, 4, 3);
  rollback.message = "scale did not converge; rolling back to 3";
  EXPECT_EQ(dry_run_event_message(dry, rollback, model::DhaStatus{}),
            "would roll back 4 -> 3: scale did not converge; rolling back to 3");
}

TEST(ConflictLatch, OnlyAnActiveOwnershipConflictConditionCounts) {
  model::DhaStatus s;
  EXPECT_FALSE(conflict_already_reported(s));
  s.conditions.push_back({"ScalingLimited", "True", "AtLimit", "held", 0, 1});
  EXPECT_FALSE(conflict_already_reported(s));
  s.conditions[0].reason = "OwnershipConflict";
  EXPECT_TRUE(conflict_already_reported(s));
  s.conditions[0].status = "False";
  EXPECT_FALSE(conflict_already_reported(s));
}

TEST(KeepDecisionTime, UnchangedDecisionKeepsItsTimeAChangedOneTakesTheNewTime) {
  model::DhaStatus previous;
  previous.last_decision = model::LastDecision{100, DecisionKind::NoChange, 3, 3, "Ready", "no change", {}};
  model::DhaStatus next = previous;
  next.last_decision->time = 160;
  keep_decision_time(previous, next);
  EXPECT_EQ(next.last_decision->time, 100);
  EXPECT_EQ(next, previous);  // so the status writer skips the write

  next.last_decision->time = 160;
  next.last_decision->desired_replicas = 4;
  keep_decision_time(previous, next);
  EXPECT_EQ(next.last_decision->time, 160);
}

// A patch whose status write failed must not be forgotten (found by the soak).
TEST(RestoreUnpersistedState, PatchFieldsTable) {
  model::DecisionState after_patch;
  after_patch.last_applied_replicas = 4;
  after_patch.last_scale_time = 200;
  after_patch.in_flight_since = 200;
  struct Case {
    const char* name;
    std::optional<std::int64_t> status_scale_time;
    bool restored;
  };
  for (const auto& c : std::vector<Case>{{"status never saw a patch", std::nullopt, true},
                                         {"status shows an older patch", 100, true},
                                         {"status caught up", 200, false},
                                         {"status shows a newer patch", 300, false}}) {
    model::DecisionState from_status;
    from_status.last_applied_replicas = 3;
    from_status.last_scale_time = c.status_scale_time;
    from_status.last_converged_replicas = 3;
    EXPECT_EQ(restore_unpersisted_state(from_status, after_patch), c.restored) << c.name;
    EXPECT_EQ(from_status.last_applied_replicas, c.restored ? 4 : 3) << c.name;
    EXPECT_EQ(from_status.in_flight_since.has_value(), c.restored) << c.name;
    EXPECT_EQ(from_status.last_converged_replicas, 3) << c.name << ": only what the patch changed is restored";
  }
  model::DecisionState nothing;  // no patch remembered
  model::DecisionState from_status;
  EXPECT_FALSE(restore_unpersisted_state(from_status, nothing));
}

TEST(RestoreUnpersistedState, RecommendationsTheStatusNeverReceived) {
  model::DecisionState unpersisted;
  unpersisted.recommendations = {{100, 2}, {160, 3}, {220, 3}};
  model::DecisionState from_status;
  from_status.recommendations = {{40, 2}, {100, 2}};
  EXPECT_TRUE(restore_unpersisted_state(from_status, unpersisted));
  EXPECT_EQ(from_status.recommendations, (std::vector<model::Recommendation>{{40, 2}, {100, 2}, {160, 3}, {220, 3}}));
  // Caught up (the next status write carried them): nothing more to restore.
  EXPECT_FALSE(restore_unpersisted_state(from_status, unpersisted));
  // A status written later by another leader keeps its own history.
  model::DecisionState newer;
  newer.recommendations = {{300, 2}};
  EXPECT_FALSE(restore_unpersisted_state(newer, unpersisted));
  EXPECT_EQ(newer.recommendations, (std::vector<model::Recommendation>{{300, 2}}));
}

// One recommendation per cycle would make describe a list of repeats: the status keeps those a
// window can still need (the restart test in next_state_test shows the decisions stay the same).
TEST(StoreInStatus, KeepsOnlyTheRecommendationsAWindowCanStillNeed) {
  auto d = decision(DecisionKind::NoChange, 5, 5);
  d.next_state.recommendations = {{100, 3}, {160, 5}, {220, 5}, {280, 4}, {340, 5}, {400, 5}};
  model::DhaStatus s;
  store_in_status(s, d, 400, 1);
  // 3 is the lowest of every window reaching back to 100, 4 of those reaching to 280; 5 is the newest.
  EXPECT_EQ(s.state.recommendations, (std::vector<model::Recommendation>{{100, 3}, {280, 4}, {400, 5}}));
  EXPECT_EQ(s.current_replicas, 5);
  EXPECT_EQ(s.desired_replicas, 5);
}

}  // namespace
}  // namespace dha::status
