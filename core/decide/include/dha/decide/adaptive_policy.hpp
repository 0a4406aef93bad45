#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dha/decide/formula.hpp"
#include "dha/model/decision_state.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"

// The Adaptive scaling policy: turns this cycle's load into the proposal the gate chain then
// shapes and guards exactly as for the Windowed policy. Pure: (spec, observation, state, now).
namespace dha::decide {

// Until a scale-up of ours has been seen to finish, assume a replica takes this long to be ready.
inline constexpr std::int64_t kAssumedReadySeconds = 120;
// A previous demand older than this says nothing about the trend or a confirmation.
inline constexpr std::int64_t kDemandMemorySeconds = 300;

struct AdaptiveProposal {
  std::int32_t replicas = 0;
  // What this cycle records in the recommendation history: the count that keeps the hysteresis
  // headroom, so the down-window holds a size until the load has stayed clear of it throughout.
  std::int32_t recorded = 0;
  std::string reason;  // for the trace: Overload, Unconfirmed, Headroom, Rising, Pass
  std::string message;
};

// The load in read replicas at target: the largest total / target over the metrics.
double demand_read_replicas(const MetricsResult& metrics, std::int32_t current, std::int32_t primary_count);

// `state` is this cycle's state after the convergence bookkeeping; `demand` comes from
// demand_read_replicas for the same observation.
AdaptiveProposal adaptive_proposal(const model::DhaSpec& spec, const model::Observation& obs,
                                   const model::DecisionState& state, double demand, std::int64_t now);

// The policy's own memory: this cycle's demand, and the ready time of our last scale-up when this
// cycle sees it converge (`before` is the state as it came in, before the bookkeeping).
void remember_adaptive(model::DecisionState& next, const model::DecisionState& before, const model::Observation& obs,
                       std::optional<double> demand, std::int64_t now);

}  // namespace dha::decide
