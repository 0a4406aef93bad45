#pragma once

#include <cstdint>
#include <string>

#include "dha/model/decision_state.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"

namespace dha::gates {

// Everything a gate may read. Gates never write it: they are pure functions of (proposal, ctx).
struct GateContext {
  const model::DhaSpec& spec;
  const model::Observation& observation;
  // The state after this cycle's convergence bookkeeping (inFlightSince cleared on convergence,
  // lastConverged refreshed), before the recommendation of this cycle is recorded.
  const model::DecisionState& state;
  std::int64_t now = 0;
  bool metrics_available = false;
  std::string invalid_target_metric{};  // non-empty: that metric's target is <= 0
  std::int32_t raw_desired = 0;
  std::int32_t quorum_floor = 1;    // effective: 1 when respectQuorum is false
  bool ownership_conflict = false;  // lastApplied is set and current differs from it
  std::string metrics_summary{};    // "ReadConnections 210/150" for messages
  std::string dha_namespace{};      // identity for plugin gate requests; may be empty
  std::string dha_name{};

  std::int32_t current() const { return observation.current_replicas; }
};

}  // namespace dha::gates
