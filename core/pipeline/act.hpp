#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "dha/kube/client.hpp"
#include "dha/model/decision_state.hpp"
#include "dha/sdk/actuator_types.hpp"
#include "host/cached_reader.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "pipeline/target.hpp"

// ACT: a replica count reaches the target through the engine's actuator. The actuator plans
// the API requests; this carries them out with the operator's client, in order.
namespace dha::pipeline {

// The target changed after it was read (its resourceVersion moved): the write was refused and
// the decision must be made again from a fresh read, where a replica count someone else wrote
// shows as the ownership conflict it is.
class TargetChanged : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Act {
 public:
  // `reader`, when given, is told of every write to a target, so the next reconcile's read of
  // it is not the cache's version from before the write (CachedReader::wrote).
  Act(kube::Client& client, const op::PluginSet& plugins, op::SelfMetrics& metrics,
      const op::CachedReader* reader = nullptr)
      : client_(client), plugins_(plugins), metrics_(metrics), reader_(reader) {}

  // Scales the target from `current` to `desired` replicas, on condition that it is still the
  // version read (its resourceVersion); throws TargetChanged when it is not, and on failure.
  void scale(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha, std::int32_t current,
             std::int32_t desired) const;
  // The DHA is going away: the actuator undoes what marks the target as ours; throws on failure.
  void release(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha) const;

  // A replica count that differs from the state's lastAppliedReplicas but that the target shows
  // as written by this DHA's actuator (see target_shows_our_write): our own patch whose status
  // write never landed (the operator died in between). Records it as ours, in flight from `now`;
  // false otherwise (then it is a competing writer's).
  bool adopt_unrecorded_patch(model::DecisionState& state, const Target& target, const std::string& replicas_path,
                              const sdk::DhaRef& dha, std::int32_t current, std::int64_t now) const;

 private:
  sdk::ActuatorPlan plan(const Target& target, sdk::ActuatorRequest request) const;
  // `conditional`: the first write is refused (TargetChanged) if the target moved on since read.
  void carry_out(const Target& target, const sdk::ActuatorPlan& steps, bool conditional) const;

  kube::Client& client_;
  const op::PluginSet& plugins_;
  op::SelfMetrics& metrics_;
  const op::CachedReader* reader_;
};

}  // namespace dha::pipeline
