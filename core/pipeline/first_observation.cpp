#include "pipeline/first_observation.hpp"

namespace dha::pipeline {

model::DecisionState state_for_decide(const model::DhaStatus& previous, const model::DhaSpec& spec,
                                      std::int32_t current_replicas, std::int64_t now) {
  model::DecisionState state = previous.state;
  const bool first = !previous.last_decision && state.recommendations.empty();
  if (!first || spec.behavior.immediate_first_decision) return state;
  // An entry as old as a window is still inside it: with no up window, one second earlier keeps
  // the first scale-up immediate, as a zero window promises, and the down window counts from then.
  const std::int64_t at = spec.behavior.scale_up.stabilization_window_seconds == 0 ? now - 1 : now;
  state.recommendations.push_back({at, current_replicas});
  return state;
}

}  // namespace dha::pipeline
