#include "dha/status_writer/unpersisted_state.hpp"

#include <cstdint>

namespace dha::status {

bool restore_unpersisted_state(model::DecisionState& from_status, const model::DecisionState& unpersisted) {
  bool restored = false;
  // Recommendations the status never received: without them the stabilization windows would
  // forget what they held (a scale-down before the down window has held, found by the soak).
  const std::int64_t newest_stored =
      from_status.recommendations.empty() ? INT64_MIN : from_status.recommendations.back().time;
  for (const auto& r : unpersisted.recommendations) {
    if (r.time <= newest_stored) continue;
    from_status.recommendations.push_back(r);
    restored = true;
  }
  // What our last patch changed, unless the status already shows it (or a newer patch).
  if (unpersisted.last_scale_time &&
      (!from_status.last_scale_time || *from_status.last_scale_time < *unpersisted.last_scale_time)) {
    from_status.last_applied_replicas = unpersisted.last_applied_replicas;
    from_status.last_scale_time = unpersisted.last_scale_time;
    from_status.in_flight_since = unpersisted.in_flight_since;
    from_status.backoff = unpersisted.backoff;
    restored = true;
  }
  return restored;
}

bool UnpersistedStates::restore(const std::string& key, model::DecisionState& from_status) {
  std::lock_guard lock(mu_);
  auto it = states_.find(key);
  if (it == states_.end()) return false;
  if (restore_unpersisted_state(from_status, it->second)) return true;
  states_.erase(it);
  return false;
}

void UnpersistedStates::remember(const std::string& key, const model::DecisionState& state) {
  std::lock_guard lock(mu_);
  states_[key] = state;
}

void UnpersistedStates::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  states_.erase(key);
}

}  // namespace dha::status
