#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/controller.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/engine_types.hpp"
#include "operator/cached_reader.hpp"
#include "operator/plugin_set.hpp"
#include "operator/self_metrics.hpp"
#include "dha/kube/clock.hpp"
#include "pipeline/grouped_query.hpp"
#include "pipeline/history_cache.hpp"
#include "pipeline/metric_query.hpp"
#include "pipeline/predictive_forecast.hpp"
#include "pipeline/stop.hpp"
#include "pipeline/target.hpp"

// OBSERVE: everything one reconcile needs to know about a target, gathered into one immutable
// model::Observation, or the Stop that says why there is nothing to decide on. Reads the target
// and asks its engine adapter for the topology, then reads the health object, the namespace's
// monitoring label and ResourceQuotas (all through the CachedReader: informer caches once
// synced) and the metrics. It also registers what it read, so that a change of any of those
// objects requeues the DHA.
namespace dha::pipeline {

inline constexpr const char* kMonitoringNamespaceLabel = "namespace.cozystack.io/monitoring";

struct ObserveOptions {
  double query_timeout_seconds = 10;
  // How long a grouped metric answer serves the reconciles of one namespace and kind, from when
  // it was asked for; 0: each reconcile asks its own grouped query.
  std::int64_t grouped_answer_seconds = 0;
  // false: every target asks its own queries even where the adapter offers grouped ones.
  bool grouped_queries = true;
  // Whose wall time the cycles are counted in; nullptr: the system clock. Outlives the Observe.
  const kube::Clock* clock = nullptr;
};

// What the signals are read for: the target as read, and its topology.
struct ObserveRequest {
  std::string namespace_name;
  std::string dha_name;
  const model::DhaSpec& spec;
  const op::EngineBinding& engine;
  const rapidjson::Value& target;
  const sdk::Topology& topology;
  const PredictiveContext* predictive = nullptr;  // set: also forecast, if the spec is predictive
};

struct Signals {
  model::Observation observation;
  std::optional<kube::ResourceRef> health_object;  // the separate health object, if any (to watch)
  // Why health or a driver metric is unknown, naming the object or query: the status writer puts
  // them in the condition message of a HealthUnknown or MetricUnavailable freeze.
  std::vector<std::string> health_causes;
  std::vector<std::string> metric_causes;
  std::vector<std::string> problems;               // other unknowns (quota, namespace), for logs
  std::vector<std::string> notes;                  // the same for optional signals (lag, writes): debug
};

struct Observed {
  Target target;
  sdk::Topology topology;
  Signals signals;
};

class Observe {
 public:
  // Asked for every kind of object read per target (the target kind, the health object kind)
  // so that the operator can watch it; may be empty.
  using WatchRequest = std::function<void(const kube::ResourceRef& collection)>;

  Observe(const op::CachedReader& reader, const op::PluginSet& plugins, op::SelfMetrics& metrics,
          kube::OwnerIndex& owners, ObserveOptions options = {}, WatchRequest watch = {});

  std::variant<Observed, Stop> run(const std::string& ns, const std::string& dha_name, const model::DhaSpec& spec,
                                   const PredictiveContext* predictive = nullptr) const;

  // The signals alone, for a target already read.
  Signals signals(const ObserveRequest& request) const;

 private:
  void observe_health(const ObserveRequest& r, Signals& out) const;
  void observe_quota(const ObserveRequest& r, Signals& out) const;
  void observe_metrics(const ObserveRequest& r, Signals& out) const;
  std::optional<std::string> monitoring_namespace(const std::string& ns, Signals& out) const;
  std::optional<double> as_utilization(const ObserveRequest& r, const std::string& type, double millicores,
                                       std::vector<std::string>& causes) const;
  // One signal's value, its series combined as `how` says; nullopt on any failure (noted in
  // `problems`). Read from the namespace's grouped answer when the adapter gave a grouped query
  // for it (`grouped` not empty) and that answer speaks for the target, else from the target's
  // own query.
  std::optional<double> query(const std::string& query_template, const std::string& grouped,
                              const sdk::Queries& queries, const ObserveRequest& r,
                              const std::optional<std::string>& monitoring_ns, Aggregation how,
                              const std::string& what, std::vector<std::string>& problems) const;
  // The target's reading from the grouped answer, or nullopt when it must ask its own query.
  std::optional<MetricQueryResult> grouped_reading(const std::string& grouped, const sdk::GroupedQueries& g,
                                                   const ObserveRequest& r,
                                                   const std::optional<std::string>& monitoring_ns, Aggregation how,
                                                   const std::string& what) const;

  const op::CachedReader& reader_;
  const op::PluginSet& plugins_;
  op::SelfMetrics& metrics_;
  kube::OwnerIndex& owners_;
  ObserveOptions options_;
  WatchRequest watch_;
  mutable HistoryCache history_;  // predictive DHAs' metric history, refreshed hourly
  mutable GroupedAnswers grouped_;  // this cycle's grouped metric answers
};

}  // namespace dha::pipeline
