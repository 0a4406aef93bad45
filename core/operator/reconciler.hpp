#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "dha/decide/decide.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/event_recorder.hpp"
#include "dha/kube/reconcile.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"
#include "operator/observer.hpp"
#include "operator/plugin_set.hpp"
#include "operator/self_metrics.hpp"
#include "operator/status_writer.hpp"

// One DHA's reconcile (BEHAVIOUR §3.3 with every Part A amendment):
//   get DHA → deletion (release the marker, drop gauges, remove the finalizer) → add finalizer →
//   parse spec → engine adapter (NoAdapter) → get target (NotScalable) → topology (NotScalable,
//   missing replicas) → OBSERVE → DECIDE (+ gates) → events (conflict, dry-run) → ACT through
//   the actuator (PatchFailed / Scaled) → status (only when changed) → gauges.
// Every path ends in a kube::ReconcileResult; the controller's apply_result() is the one place
// that turns those into queue actions. Early stops requeue at the sync period (Part A 7).
namespace dha::op {

inline constexpr const char* kFinalizer = "autoscaling.cozystack.io/finalizer";

struct ReconcilerOptions {
  std::chrono::seconds sync_period{60};
  // Seconds since the epoch; the decision core never reads a clock itself.
  std::function<std::int64_t()> now;
  ObserverOptions observer;
};

class Reconciler {
 public:
  // Asked for every resource the reconciler reads per target (the target kind, the health
  // object kind) so that the operator can watch it; may be empty.
  using WatchRequest = std::function<void(const kube::ResourceRef& collection)>;

  // `reader` serves the target, health object, namespace and quota reads (cached_reader.hpp).
  Reconciler(kube::Client& client, const CachedReader& reader, const PluginSet& plugins, kube::EventRecorder& events,
             SelfMetrics& metrics, kube::OwnerIndex& owners, ReconcilerOptions options, WatchRequest watch = {});

  kube::ReconcileResult reconcile(const std::string& key);

 private:
  struct Context;
  kube::ReconcileResult reconcile_dha(const std::string& ns, const std::string& name);
  kube::ReconcileResult finalize(const rapidjson::Value& dha);
  rapidjson::Document add_finalizer(const kube::ResourceRef& ref);
  // An early stop: ScalingActive (and AbleToScale) False with reason/message, status written,
  // gauges refreshed (frozen), requeue at the sync period.
  kube::ReconcileResult stop(Context& ctx, const std::string& reason, const std::string& message,
                             std::optional<std::int32_t> current = std::nullopt);
  kube::ReconcileResult decide_and_act(Context& ctx);
  // Carries out a Scale/Rollback (or a release) through the engine's actuator; throws on failure.
  void actuate(const EngineBinding& engine, const kube::ResourceRef& target_ref, const rapidjson::Value& target,
               const std::string& replicas_path, const std::string& ns, const std::string& name, bool release,
               std::int32_t current, std::int32_t desired);
  void record(const rapidjson::Value& dha, kube::EventType type, const std::string& reason, const std::string& message);
  void forget(const std::string& ns, const std::string& name);

  kube::Client& client_;
  const CachedReader& reader_;
  const PluginSet& plugins_;
  kube::EventRecorder& events_;
  SelfMetrics& metrics_;
  kube::OwnerIndex& owners_;
  ReconcilerOptions options_;
  WatchRequest watch_;
  Observer observer_;
  StatusWriter status_writer_;
  // The decision state of the last cycle, per "ns/name", until a status write has persisted it.
  // State lives in status, so a failed status write would otherwise forget it (both found by
  // tests/soak): after a patch, lastAppliedReplicas — the next cycle calls our own write a
  // competing one and overrides a tenant who sets the old count back (a write war); and the
  // recommendations — the down window forgets what it held and scales down early.
  std::mutex unpersisted_mu_;
  std::map<std::string, model::DecisionState> unpersisted_;
};

// Pure helpers, exposed for unit tests.
// "ReadConnections 210/150, ReadCPUUtilization 250/500" from the decision's metric evaluations.
std::string metrics_summary(const decide::Decision& d);
// The Normal DryRunScale message ("would scale 3 -> 4: <why>"), or "" when the would-be count
// is unchanged since the last status (Part A 5: only when it changes).
std::string dry_run_event_message(const model::DhaSpec& spec, const decide::Decision& d,
                                  const model::DhaStatus& previous);
// True when the previous status already reported the ownership conflict (the persisted latch).
bool conflict_already_reported(const model::DhaStatus& previous);
// Puts back into a status read what a failed status write lost: the recommendations newer than
// the status's newest, and what our last patch changed (applied count, scale time, in-flight
// anchor, backoff) unless the status shows that patch or a newer one. False (nothing to
// restore) once the status has caught up.
bool restore_unpersisted_state(model::DecisionState& from_status, const model::DecisionState& unpersisted);
// A replicas count that differs from the status's lastAppliedReplicas but that our own marker
// and applied-count annotation on the target claim: our patch whose status write never landed
// (the operator died in between). Records it as ours, in flight from `now`; false otherwise
// (then it is a competing writer's).
bool adopt_unrecorded_patch(model::DecisionState& state, const rapidjson::Value& target, const std::string& dha_name,
                            std::int32_t current, std::int64_t now);

}  // namespace dha::op
