#pragma once

#include <map>
#include <mutex>
#include <string>

#include "dha/model/decision_state.hpp"

// The decision state lives in status, so a failed status write would forget it (both found by
// the soak): after a patch, lastAppliedReplicas — the next cycle would call our own write a
// competing one and override a tenant who sets the old count back (a write war); and the
// recommendations — the down window would forget what it held and scale down early. This keeps
// the state of each DHA's last cycle until a status write has persisted it.
namespace dha::status {

// Puts back into a status read what a failed status write lost: the recommendations newer than
// the status's newest, and what our last patch changed (applied count, scale time, in-flight
// anchor, backoff) unless the status shows that patch or a newer one. False (nothing to
// restore) once the status has caught up.
bool restore_unpersisted_state(model::DecisionState& from_status, const model::DecisionState& unpersisted);

// The unpersisted states by "ns/name". Thread-safe.
class UnpersistedStates {
 public:
  // Applies what a failed write lost to `from_status`; drops the entry once the status has it.
  // True when something was restored.
  bool restore(const std::string& key, model::DecisionState& from_status);
  void remember(const std::string& key, const model::DecisionState& state);
  void forget(const std::string& key);

 private:
  std::mutex mu_;
  std::map<std::string, model::DecisionState> states_;
};

}  // namespace dha::status
