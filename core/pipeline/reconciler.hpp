#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "dha/kube/client.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/event_recorder.hpp"
#include "dha/kube/reconcile.hpp"
#include "dha/status_writer/status_writer.hpp"
#include "host/cached_reader.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "pipeline/act.hpp"
#include "pipeline/finalize.hpp"
#include "pipeline/observe.hpp"

// One DHA's reconcile, as the data flows: get the DHA → deleting: finalize → add our finalizer
// → parse the spec → OBSERVE (target, topology, health, quota, metrics) → DECIDE (pure, with the
// gate chain) → ACT through the engine's actuator → the status writer reports it all.
// Every path ends in a kube::ReconcileResult; the controller's apply_result() is the one place
// that turns those into queue actions. Every reconcile that is not done with the DHA, early stops
// included, requeues it at its namespace's next phase instant (cycle_phase.hpp, at most one sync
// period away), so a target that appears or becomes scalable is picked up without a watch event.
namespace dha::pipeline {

struct ReconcilerOptions {
  std::chrono::seconds sync_period{60};
  // true: the periodic requeue is at the namespace's next phase instant (cycle_phase.hpp), as in
  // `run`; false: a flat sync period after this reconcile (the test kit's default, which its
  // users' tests were written against).
  bool requeue_at_namespace_phase = true;
  // Decision time is this clock's wall time in seconds (the decision core never reads a clock
  // itself); nullptr: the system clock. Outlives the reconciler.
  const kube::Clock* clock = nullptr;
  ObserveOptions observe;
};

class Reconciler {
 public:
  // Asked for every kind of object read per target (the target kind, the health object kind)
  // so that the operator can watch it; may be empty.
  using WatchRequest = std::function<void(const kube::ResourceRef& collection)>;

  // `reader` serves the target, health object, namespace and quota reads (cached_reader.hpp).
  Reconciler(kube::Client& client, const op::CachedReader& reader, const op::PluginSet& plugins,
             kube::EventRecorder& events, op::SelfMetrics& metrics, kube::OwnerIndex& owners, ReconcilerOptions options,
             WatchRequest watch = {});

  kube::ReconcileResult reconcile(const std::string& key);
  // ReconcilerOptions::requeue_at_namespace_phase after construction (the test kit's switch);
  // call it between reconciles, not during one.
  void requeue_at_namespace_phase(bool on) { options_.requeue_at_namespace_phase = on; }
  // Drops what this process keeps for a DHA (decision state a failed status write lost, its
  // gauges, what it references): on deletion, and when a sharded replica's shard moves, since
  // another replica may have written a newer status meanwhile.
  void forget(const std::string& ns, const std::string& name);

 private:
  kube::ReconcileResult reconcile_dha(const std::string& ns, const std::string& name);
  Observe::ReadNotice read_notice(const std::string& ns, const std::string& name);
  std::optional<model::Observation> with_servers_quota(const std::string& ns, const sdk::Topology& topology,
                                                       const model::Observation& obs) const;
  std::int64_t now() const;

  kube::Client& client_;
  const kube::ObjectReader& server_;  // the reads that must be the API server's, not the cache's
  const op::PluginSet& plugins_;
  op::SelfMetrics& metrics_;
  kube::OwnerIndex& owners_;
  ReconcilerOptions options_;
  WatchRequest watch_;
  Observe observe_;
  Act act_;
  Finalize finalize_;
  status::StatusWriter status_;
};

}  // namespace dha::pipeline
