// Windows count from creation: the state the decision core is given for a DHA with no history.
#include <gtest/gtest.h>

#include "dha/decide/decide.hpp"
#include "pipeline/first_observation.hpp"

namespace dha::pipeline {
namespace {

model::DhaSpec spec_with_windows(std::int32_t up, std::int32_t down, bool immediate = false) {
  model::DhaSpec spec;
  spec.min_replicas = 2;
  spec.max_replicas = 6;
  model::MetricSpec m;
  m.target = *model::parse_quantity("100");
  spec.metrics = {m};
  spec.behavior.scale_up.stabilization_window_seconds = up;
  spec.behavior.scale_down.stabilization_window_seconds = down;
  spec.behavior.immediate_first_decision = immediate;
  return spec;
}

model::Observation low_load_on(std::int32_t replicas) {
  model::Observation obs;
  obs.current_replicas = replicas;
  obs.available_replicas = replicas;
  obs.metrics = {{"ReadConnections", 50.0}};  // wants 2
  obs.lag_seconds = 0;
  return obs;
}

struct Row {
  const char* name;
  bool has_decision;
  std::vector<model::Recommendation> history;
  bool immediate;
  std::size_t seeded;  // recommendations handed to decide
};

class FirstObservation : public ::testing::TestWithParam<Row> {};

TEST_P(FirstObservation, SeedsOnlyAHistorylessDha) {
  const auto& row = GetParam();
  model::DhaStatus previous;
  previous.state.recommendations = row.history;
  if (row.has_decision) previous.last_decision = model::LastDecision{};
  const auto state = state_for_decide(previous, spec_with_windows(300, 1800, row.immediate), 4, 1000);
  ASSERT_EQ(state.recommendations.size(), row.seeded);
  if (row.seeded == 1 && row.history.empty()) {
    EXPECT_EQ(state.recommendations[0].time, 1000);  // the up window is 300 s
    EXPECT_EQ(state.recommendations[0].replicas, 4);
  }
}

INSTANTIATE_TEST_SUITE_P(Table, FirstObservation,
                         ::testing::Values(Row{"new_dha", false, {}, false, 1}, Row{"opted_out", false, {}, true, 0},
                                           Row{"decided_before_with_zero_windows", true, {}, false, 0},
                                           Row{"has_history", false, {{900, 5}}, false, 1}),
                         [](const auto& info) { return std::string(info.param.name); });

// The point of it: a new DHA on 4 instances at low load does not scale down at once, and does
// once the down window has passed since its first observation; opting out scales at once.
TEST(FirstObservation, TheFirstScaleDownWaitsTheWholeDownWindow) {
  const auto spec = spec_with_windows(0, 1800);
  const model::DhaStatus fresh;
  const auto first = decide::decide(spec, low_load_on(4), state_for_decide(fresh, spec, 4, 1000), 1000);
  EXPECT_EQ(first.desired_replicas, 4) << first.message;

  model::DhaStatus later;
  later.last_decision = model::LastDecision{};
  later.state = first.next_state;
  const auto inside = decide::decide(spec, low_load_on(4), state_for_decide(later, spec, 4, 2798), 2798);
  EXPECT_EQ(inside.desired_replicas, 4) << inside.message;
  later.state = inside.next_state;
  const auto after = decide::decide(spec, low_load_on(4), state_for_decide(later, spec, 4, 2801), 2801);
  EXPECT_EQ(after.desired_replicas, 3) << after.message;

  const auto immediate = spec_with_windows(0, 1800, true);
  const auto at_once = decide::decide(immediate, low_load_on(4), state_for_decide(fresh, immediate, 4, 1000), 1000);
  EXPECT_EQ(at_once.desired_replicas, 3) << at_once.message;
}

// A zero up window stays zero: the seed does not hold the first scale-up back.
TEST(FirstObservation, AZeroUpWindowStillScalesUpAtOnce) {
  const auto spec = spec_with_windows(0, 1800);
  model::Observation busy = low_load_on(3);
  busy.metrics = {{"ReadConnections", 300.0}};  // wants 4
  const auto first = decide::decide(spec, busy, state_for_decide(model::DhaStatus{}, spec, 3, 1000), 1000);
  EXPECT_EQ(first.desired_replicas, 4) << first.message;
  const auto windowed = spec_with_windows(300, 1800);
  const auto held = decide::decide(windowed, busy, state_for_decide(model::DhaStatus{}, windowed, 3, 1000), 1000);
  EXPECT_EQ(held.desired_replicas, 3) << "a new DHA's first scale-up waits its up window: " << held.message;
}

}  // namespace
}  // namespace dha::pipeline
