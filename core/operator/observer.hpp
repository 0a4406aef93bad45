#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

#include "dha/kube/client.hpp"
#include "operator/cached_reader.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/engine_types.hpp"
#include "operator/plugin_set.hpp"
#include "operator/self_metrics.hpp"

// OBSERVE (ARCHITECTURE §2): everything one reconcile needs to know about a target, gathered
// into one immutable model::Observation. The target object and its topology come in (the
// reconciler read them, since several early stops depend on them); this reads the health
// object, the namespace's monitoring label, the ResourceQuotas (all three through the
// CachedReader: informer caches once synced) and the metrics.
namespace dha::op {

inline constexpr const char* kMonitoringNamespaceLabel = "namespace.cozystack.io/monitoring";

struct ObserveRequest {
  std::string namespace_name;
  std::string dha_name;
  const model::DhaSpec& spec;
  const EngineBinding& engine;
  const rapidjson::Value& target;
  const sdk::Topology& topology;
};

struct ObserveResult {
  model::Observation observation;
  std::optional<kube::ResourceRef> health_object;  // the separate health object, if any (to watch)
  std::vector<std::string> problems;               // why something is unknown/unavailable, for logs
  std::vector<std::string> notes;                  // the same for optional signals (lag, writes): debug
};

struct ObserverOptions {
  double query_timeout_seconds = 10;  // BEHAVIOUR §3.1
};

class Observer {
 public:
  Observer(const CachedReader& reader, const PluginSet& plugins, SelfMetrics& metrics, ObserverOptions options = {});
  ObserveResult observe(const ObserveRequest& request) const;

 private:
  void observe_health(const ObserveRequest& r, ObserveResult& out) const;
  void observe_quota(const ObserveRequest& r, ObserveResult& out) const;
  void observe_metrics(const ObserveRequest& r, ObserveResult& out) const;
  std::optional<std::string> monitoring_namespace(const std::string& ns, ObserveResult& out) const;
  // Sum (or max) of the samples of one scoped query; nullopt on any failure (noted in `out`).
  std::optional<double> query(const std::string& query_template, const ObserveRequest& r,
                              const std::optional<std::string>& monitoring_ns, bool take_max,
                              const std::string& what, std::vector<std::string>& problems) const;

  const CachedReader& reader_;
  const PluginSet& plugins_;
  SelfMetrics& metrics_;
  ObserverOptions options_;
};

}  // namespace dha::op
