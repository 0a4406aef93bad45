#include "pipeline/first_observation.hpp"

namespace dha::pipeline {

model::DecisionState state_for_decide(const model::DhaStatus& previous, const model::DhaSpec& spec,
                                      std::int32_t current_replicas, std::int64_t now) {
  model::DecisionState state = previous.state;
  const bool first = !previous.last_decision && state.recommendations.empty();
  if (first && !spec.behavior.immediate_first_decision) state.recommendations.push_back({now, current_replicas});
  return state;
}

}  // namespace dha::pipeline
