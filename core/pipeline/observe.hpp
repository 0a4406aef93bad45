#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "dha/decide/load_trace.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/object_reader.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/engine_types.hpp"
#include "host/plugin_set.hpp"
#include "pipeline/grouped_query.hpp"
#include "pipeline/history_cache.hpp"
#include "pipeline/metric_history.hpp"
#include "pipeline/metric_query.hpp"
#include "pipeline/predictive_forecast.hpp"
#include "pipeline/stop.hpp"
#include "pipeline/target.hpp"

// OBSERVE: everything one reconcile needs to know about a target, gathered into one immutable
// model::Observation, or the Stop that says why there is nothing to decide on. Reads the target
// and asks its engine adapter for the topology, then reads the health object, the namespace's
// monitoring label and ResourceQuotas (through an ObjectReader: the operator's informer caches,
// a tool's GETs) and the metrics. It is the one way a DHA's signals are read: the reconcile, and
// every tool that explains one (`db-autoscaler metrics`, `simulate --from-metrics`, `kubectl dha
// backtest`), run it. It tells the caller which objects it reads (ReadNotice), so that the
// reconciler can have a change of any of them requeue the DHA.
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
  // Where a target the reader does not have is looked for before it is reported missing: the
  // operator's watch cache has not seen a target created moments ago (a database and its DHA
  // applied together), and "not found" would stop the DHA with a false Warning. nullptr: the
  // reader's answer stands (a tool's reader is the server already). Outlives the Observe.
  const kube::ObjectReader* server = nullptr;
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

// How one signal was read: the tools print it, so a reader sees the query the operator sent.
struct SignalReading {
  std::string what;   // "ReadConnections", "lag", "write activity"
  std::string query;  // as sent (for a grouped reading, the grouped query)
  Aggregation how = Aggregation::kSum;
  std::size_t series = 0;       // how many series went into the value
  bool grouped = false;         // read from the namespace's grouped answer
  std::optional<double> value;  // the series combined, before any conversion to utilization
  std::string error;            // why there is no value: status and reason ("" with a value)
};

struct Signals {
  model::Observation observation;
  std::optional<kube::ResourceRef> health_object;  // the separate health object, if any (to watch)
  // Why health or a driver metric is unknown, naming the object or query: the status writer puts
  // them in the condition message of a HealthUnknown or MetricUnavailable freeze.
  std::vector<std::string> health_causes;
  std::vector<std::string> metric_causes;
  std::vector<std::string> problems;                // other unknowns (quota, namespace), for logs
  std::vector<std::string> notes;                   // the same for optional signals (lag, writes): debug
  std::vector<SignalReading> readings;              // every metric query, in the order asked
  std::optional<std::string> monitoring_namespace;  // the namespace's label, as the metric source got it
};

struct Observed {
  Target target;
  sdk::Topology topology;
  Signals signals;
};

// A target's signals over a past range, as a load trace whose time 0 is grid.start.
struct ObservedHistory {
  decide::LoadTrace trace;
  std::vector<std::string> notes;  // signals left out, steps left empty, and why
  std::optional<std::string> monitoring_namespace;
};

class Observe {
 public:
  // Told of each object before it is read (the target, then its health object), so that the
  // reconciler can register it and a change of it requeues the DHA; may be empty.
  using ReadNotice = std::function<void(const kube::ResourceRef& object)>;
  // Counts a metric query sent: scope "grouped" or "target", outcome as MetricQueryResult's.
  using QueryCounter = std::function<void(const std::string& scope, const std::string& outcome)>;

  Observe(const kube::ObjectReader& reader, const op::PluginSet& plugins, ObserveOptions options = {},
          QueryCounter count = {});

  std::variant<Observed, Stop> run(const std::string& ns, const std::string& dha_name, const model::DhaSpec& spec,
                                   const PredictiveContext* predictive = nullptr, const ReadNotice& notice = {}) const;

  // The target and the adapter's topology of it (no signals), without run()'s checks that it can
  // be scaled: a tool shows what the operator reads even for a target it would not scale.
  std::variant<Observed, Stop> target(const std::string& ns, const model::DhaSpec& spec,
                                      const ReadNotice& notice = {}) const;

  // The signals alone, for a target already read (`notice` as for run()).
  Signals signals(const ObserveRequest& request, const ReadNotice& notice = {}) const;

  // The spec's driver metrics (and, with `with_lag`, the lag and write activity) over `grid`,
  // read with the same queries, monitoring namespace and valid-reading rule as signals(). Throws
  // history::HistoryError (bad_input() for a refused query or a driver metric without history).
  ObservedHistory history(const ObserveRequest& request, const history::Grid& grid, bool with_lag,
                          double timeout_seconds) const;

 private:
  void observe_health(const ObserveRequest& r, const ReadNotice& notice, Signals& out) const;
  void observe_quota(const ObserveRequest& r, Signals& out) const;
  void observe_metrics(const ObserveRequest& r, Signals& out) const;
  std::optional<std::string> monitoring_namespace(const std::string& ns, std::vector<std::string>& problems) const;
  std::optional<double> utilization_factor(const ObserveRequest& r, const std::string& type,
                                           std::vector<std::string>& causes) const;
  std::map<std::string, double> utilization_scale(const ObserveRequest& r, std::vector<std::string>& causes) const;
  // One signal's value, its series combined as `how` says; nullopt on any failure (noted in
  // `problems`). Read from the namespace's grouped answer when the adapter gave a grouped query
  // for it (`grouped` not empty) and that answer speaks for the target, else from the target's
  // own query. Each read is added to `out.readings`.
  std::optional<double> query(const std::string& query_template, const std::string& grouped,
                              const sdk::Queries& queries, const ObserveRequest& r, Aggregation how,
                              const std::string& what, std::vector<std::string>& problems, Signals& out) const;
  // The target's reading from the grouped answer, or nullopt when it must ask its own query.
  std::optional<MetricQueryResult> grouped_reading(const std::string& grouped, const sdk::GroupedQueries& g,
                                                   const ObserveRequest& r,
                                                   const std::optional<std::string>& monitoring_ns, Aggregation how,
                                                   const std::string& what) const;
  void count(const std::string& scope, const std::string& outcome) const {
    if (count_) count_(scope, outcome);
  }

  const kube::ObjectReader& reader_;
  const op::PluginSet& plugins_;
  ObserveOptions options_;
  QueryCounter count_;
  mutable HistoryCache history_;    // predictive DHAs' metric history, refreshed hourly
  mutable GroupedAnswers grouped_;  // this cycle's grouped metric answers
};

// What the namespace's ResourceQuotas, as `reader` has them, leave room for: the most instances
// of `topology`'s target that fit, or nullopt when no ceiling applies — its pods' request is
// unknown (then nothing is read), no quota names cpu or memory, or the quotas cannot be read
// (then `problem` says why).
std::optional<std::int32_t> quota_ceiling(const kube::ObjectReader& reader, const std::string& ns,
                                          const sdk::Topology& topology, std::int32_t current, std::string& problem);

// The metric types of the spec, each once, in the spec's order.
std::vector<std::string> metric_types_of(const model::DhaSpec& spec);

// The engine adapter's queries for the target's `metric_types`; throws std::runtime_error naming
// what failed.
sdk::Queries engine_queries_for(const ObserveRequest& r, const std::vector<std::string>& metric_types);

}  // namespace dha::pipeline
