#include <gtest/gtest.h>

#include "dha/status_writer/decision_status.hpp"
#include "dha/status_writer/hold_conditions.hpp"

namespace dha::status {
namespace {

using model::DecisionKind;

constexpr std::int64_t kNow = 1'000'000;

// A decision as decide returns it: its own conditions (Ready / within limits unless frozen or
// limited) and the gate trace.
decide::Decision decision(DecisionKind kind, int current, int desired, std::vector<model::TraceEntry> trace) {
  decide::Decision d;
  d.kind = kind;
  d.current_replicas = current;
  d.desired_replicas = desired;
  d.able_to_scale = kind != DecisionKind::Freeze;
  d.able_to_scale_condition = d.able_to_scale ? decide::ConditionView{"AbleToScale", "True", "Ready", "ready to scale"}
                                              : decide::ConditionView{"AbleToScale", "False", "ScaleInFlight",
                                                                      "scale in flight; waiting for convergence"};
  d.scaling_limited_condition = {"ScalingLimited", "False", "Ready", "within limits"};
  d.message = kind == DecisionKind::Scale
                  ? "scale " + std::to_string(current) + " -> " + std::to_string(desired) +
                        " (ReadConnections 250/100 per read replica)"
                  : "no change at " + std::to_string(current) + " (ReadConnections 250/100 per read replica)";
  d.trace = std::move(trace);
  return d;
}

const model::TraceEntry kUpWindow{"Stabilization", 5, 3, "Stabilized",
                                  "scale-up limited to 3 by the lowest recommendation in the last 300s"};
const model::TraceEntry kDownWindow{"Stabilization", 2, 4, "Stabilized",
                                    "scale-down held at 4 by the highest recommendation in the last 1800s"};
const model::TraceEntry kStep{"StepLimit", 5, 3, "StepLimited", "scale-up step 1 per cycle"};
const model::TraceEntry kInFlight{"Convergence", 2, 2, "ScaleInFlight", "scale in flight; waiting for convergence"};

model::DhaStatus previously_limited(const char* reason, const char* message) {
  model::DhaStatus s;
  s.conditions.push_back({"ScalingLimited", "True", reason, message, kNow - 600, 1});
  return s;
}

const model::Condition& condition(const model::DhaStatus& s, const char* type) {
  const model::Condition* c = model::find_condition(s.conditions, type);
  if (c == nullptr) throw std::runtime_error(std::string("no condition ") + type);
  return *c;
}

TEST(HoldConditions, Table) {
  struct Case {
    const char* name;
    decide::Decision d;
    model::DhaStatus previous;
    std::string able, able_message, limited_status, limited, limited_message;
  };
  const Case cases[] = {
      {"a rise held by the up-window",
       decision(DecisionKind::Scale, 2, 3, {kUpWindow}),
       {},
       "ScaleUpStabilized",
       "Stabilization: 5 -> 3 (" + kUpWindow.message + ")",
       "False",
       "Ready",
       "within limits"},
      {"a fall held by the down-window",
       decision(DecisionKind::NoChange, 4, 4, {kDownWindow}),
       {},
       "ScaleDownStabilized",
       "Stabilization: 2 -> 4 (" + kDownWindow.message + ")",
       "False",
       "Ready",
       "within limits"},
      {"a window that passed names nothing",
       decision(DecisionKind::Scale, 2, 3, {{"Stabilization", 3, 3, "Pass", "recommendation held"}}),
       {},
       "Ready",
       "ready to scale",
       "False",
       "Ready",
       "within limits"},
      {"the step limit clamps",
       decision(DecisionKind::Scale, 2, 3, {kStep}),
       {},
       "Ready",
       "ready to scale",
       "True",
       "StepLimited",
       "StepLimit: 5 -> 3 (scale-up step 1 per cycle)"},
      {"window and step both",
       decision(DecisionKind::Scale, 2, 3, {kUpWindow, {"StepLimit", 3, 3, "Pass", ""}}),
       {},
       "ScaleUpStabilized",
       "Stabilization: 5 -> 3 (" + kUpWindow.message + ")",
       "False",
       "Ready",
       "within limits"},
      {"a quota clamp survives a ScaleInFlight freeze", decision(DecisionKind::Freeze, 4, 4, {kInFlight}),
       previously_limited("QuotaExceeded", "clamped to tenant quota ceiling 4"), "ScaleInFlight",
       "scale in flight; waiting for convergence", "True", "QuotaExceeded", "clamped to tenant quota ceiling 4"},
      {"maxReplicas survives a freeze", decision(DecisionKind::Freeze, 5, 5, {kInFlight}),
       previously_limited("AtLimit", "held at maxReplicas 5"), "ScaleInFlight",
       "scale in flight; waiting for convergence", "True", "AtLimit", "held at maxReplicas 5"},
      {"a freeze without an earlier limit",
       decision(DecisionKind::Freeze, 4, 4, {kInFlight}),
       {},
       "ScaleInFlight",
       "scale in flight; waiting for convergence",
       "False",
       "Ready",
       "within limits"},
      {"an evaluated chain ends an earlier limit", decision(DecisionKind::NoChange, 4, 4, {}),
       previously_limited("QuotaExceeded", "clamped to tenant quota ceiling 4"), "Ready", "ready to scale", "False",
       "Ready", "within limits"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    model::DhaStatus s = c.previous;
    store_in_status(s, c.d, kNow, 2);
    name_holds(s, c.d, c.previous, kNow, 2);
    EXPECT_EQ(condition(s, "AbleToScale").reason, c.able);
    EXPECT_EQ(condition(s, "AbleToScale").message, c.able_message);
    EXPECT_EQ(condition(s, "ScalingLimited").status, c.limited_status);
    EXPECT_EQ(condition(s, "ScalingLimited").reason, c.limited);
    EXPECT_EQ(condition(s, "ScalingLimited").message, c.limited_message);
    EXPECT_EQ(condition(s, "ScalingLimited").observed_generation, 2);
  }
}

TEST(HoldConditions, AKeptLimitKeepsItsTransitionTime) {
  const auto previous = previously_limited("QuotaExceeded", "clamped to tenant quota ceiling 4");
  model::DhaStatus s = previous;
  const auto d = decision(DecisionKind::Freeze, 4, 4, {kInFlight});
  store_in_status(s, d, kNow, 2);
  name_holds(s, d, previous, kNow, 2);
  EXPECT_EQ(condition(s, "ScalingLimited").last_transition_time, kNow - 600);
}

TEST(StatusSummary, Table) {
  model::DhaSpec live;
  model::DhaSpec dry;
  dry.dry_run = true;
  struct Case {
    const char* name;
    const model::DhaSpec& spec;
    decide::Decision d;
    std::string expected;
  };
  const Case cases[] = {
      {"a scale", live, decision(DecisionKind::Scale, 2, 3, {}),
       "scale 2 -> 3 (ReadConnections 250/100 per read replica)"},
      {"a dry run would", dry, decision(DecisionKind::Scale, 2, 3, {}),
       "would scale 2 -> 3 (ReadConnections 250/100 per read replica)"},
      {"a dry run without a change", dry, decision(DecisionKind::NoChange, 2, 2, {}),
       "no change at 2 (ReadConnections 250/100 per read replica)"},
      {"a window names itself", live, decision(DecisionKind::NoChange, 4, 4, {kDownWindow}),
       "no change at 4 (ReadConnections 250/100 per read replica); ScaleDownStabilized: Stabilization: 2 -> 4 (" +
           kDownWindow.message + ")"},
      {"a step names itself", live, decision(DecisionKind::Scale, 2, 3, {kStep}),
       "scale 2 -> 3 (ReadConnections 250/100 per read replica); StepLimited: StepLimit: 5 -> 3 (scale-up step 1 per "
       "cycle)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    model::DhaStatus s;
    store_in_status(s, c.d, kNow, 1);
    name_holds(s, c.d, {}, kNow, 1);
    EXPECT_EQ(status_summary(c.spec, s, c.d.current_replicas), c.expected);
  }
}

}  // namespace
}  // namespace dha::status
