#include "operator/pipeline_wiring.hpp"

#include <spdlog/spdlog.h>

namespace dha::op {

PipelineWiring::PipelineWiring(telemetry::Registry& registry, PipelineWiringOptions o) {
  plugins = PluginSet::load(o.plugins);
  for (const auto& info : plugins->listing()) {
    std::string caps;
    for (const auto& c : info.capabilities) caps += (caps.empty() ? "" : ",") + c;
    spdlog::info("plugin {} {} [{}] from {}", info.id, info.version, caps, info.origin);
  }
  spdlog::info("engine adapters handle: {}", plugins->handled_kinds());
  config = kube::Config::load(o.kube);
  config.metrics = &registry;  // the client's request metrics, next to ours
  spdlog::info("API server {} ({})", config.server, config.source);
  client = std::make_unique<kube::Client>(config);
  metrics = std::make_unique<SelfMetrics>(registry);
  const kube::Clock& clock = o.clock != nullptr ? *o.clock : kube::SystemClock::instance();
  events = std::make_unique<kube::EventRecorder>(*client, "db-autoscaler", "", clock);
  reader = std::make_unique<CachedReader>(*client, *metrics);
  pipeline::ReconcilerOptions ro;
  ro.sync_period = o.sync_period;
  ro.requeue_at_namespace_phase = o.requeue_at_namespace_phase;
  ro.clock = &clock;
  ro.observe.grouped_answer_seconds = o.grouped_answer_max_age.count();
  reconciler = std::make_unique<pipeline::Reconciler>(*client, *reader, *plugins, *events, *metrics, owners, ro,
                                                      std::move(o.watch));
}

}  // namespace dha::op
