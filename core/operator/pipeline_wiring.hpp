#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include "dha/kube/client.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/event_recorder.hpp"
#include "dha/telemetry/registry.hpp"
#include "host/cached_reader.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "pipeline/reconciler.hpp"

// The reconcile pipeline and the host services it runs on, composed in one place: `db-autoscaler
// run` adds informers, leader election and servers around it, the SDK's pipeline harness drives
// it on a manual clock. Both get the same parts wired the same way.
namespace dha::op {

struct PipelineWiringOptions {
  PluginSetOptions plugins;
  kube::ConfigFlags kube;  // loaded after the plugins, whose errors come first
  std::chrono::seconds sync_period{60};
  bool requeue_at_namespace_phase = true;  // reconciler.hpp
  // How long one grouped metric answer serves a namespace's DHAs (observe.hpp); `run` uses
  // --grouped-query-max-age. 0: not shared.
  std::chrono::seconds grouped_answer_max_age{0};
  // The one clock of the pipeline: decision time (its wall time, in seconds) and Event
  // timestamps. nullptr: the system clock. Outlives the wiring.
  const kube::Clock* clock = nullptr;
  pipeline::Reconciler::WatchRequest watch;  // may be empty (no informers)
};

struct PipelineWiring {
  // `registry` receives the operator's own series and outlives the wiring.
  PipelineWiring(telemetry::Registry& registry, PipelineWiringOptions options);

  std::unique_ptr<PluginSet> plugins;
  kube::Config config;
  std::unique_ptr<kube::Client> client;
  std::unique_ptr<SelfMetrics> metrics;
  std::unique_ptr<kube::EventRecorder> events;
  kube::OwnerIndex owners;
  std::unique_ptr<CachedReader> reader;
  std::unique_ptr<pipeline::Reconciler> reconciler;
};

}  // namespace dha::op
