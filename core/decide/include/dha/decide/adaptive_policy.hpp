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
// An engine adapter's ready-time estimate below this is raised to it (no replica is ready sooner).
inline constexpr std::int64_t kMinReadyEstimateSeconds = 10;

// How long a new replica is expected to take to be ready, and where the figure comes from: the
// DHA's own measurement (status readySeconds) if it has one, else the engine adapter's estimate
// (observation readyEstimateSeconds, bounded to kMinReadyEstimateSeconds .. the spec's
// convergenceDeadlineSeconds; not finite or not positive = none), else kAssumedReadySeconds.
struct ReadyTime {
  enum class Source { Measured, Estimated, Assumed };
  std::int64_t seconds = kAssumedReadySeconds;
  Source source = Source::Assumed;
  // For the trace: where the figure comes from.
  std::string origin() const;
  bool operator==(const ReadyTime&) const = default;
};

ReadyTime ready_time(const model::DhaSpec& spec, std::optional<std::int64_t> measured, std::optional<double> estimate);
inline ReadyTime ready_time(const model::DhaSpec& spec, const model::Observation& obs,
                            const model::DecisionState& state) {
  return ready_time(spec, state.ready_seconds, obs.ready_estimate_seconds);
}

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
