#include "pipeline/observe.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <spdlog/spdlog.h>

#include "dha/kube/json.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "pipeline/metric_query.hpp"
#include "pipeline/quota_ceiling.hpp"
#include "tenancy/query_template.hpp"

namespace dha::pipeline {
namespace {

std::int32_t saturate_int32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
}

// The adapter's grouped query for one driver metric, "" when it has none.
std::string grouped_template(const sdk::Queries& queries, const std::string& type) {
  if (!queries.grouped) return "";
  const auto it = queries.grouped->driver.find(type);
  return it == queries.grouped->driver.end() ? "" : it->second;
}

}  // namespace

Observe::Observe(const kube::ObjectReader& reader, const op::PluginSet& plugins, ObserveOptions options,
                 QueryCounter count)
    : reader_(reader),
      plugins_(plugins),
      options_(options),
      count_(std::move(count)),
      grouped_(options.grouped_answer_seconds) {
  if (options_.clock == nullptr) options_.clock = &kube::SystemClock::instance();
}

std::variant<Observed, Stop> Observe::target(const std::string& ns, const model::DhaSpec& spec,
                                             const ReadNotice& notice) const {
  auto located = locate_target(plugins_, *spec.target_ref, ns);
  if (auto* stop = std::get_if<Stop>(&located)) return std::move(*stop);
  Observed o{std::get<Target>(std::move(located)), {}, {}};
  if (notice) notice(o.target.ref);
  const auto read = [this](const kube::ResourceRef& ref) {
    auto object = reader_.get(ref);
    return object || options_.server == nullptr ? object : options_.server->get(ref);
  };
  if (auto stop = read_target(o.target, read)) return std::move(*stop);
  auto topology = read_topology(o.target);
  if (auto* stop = std::get_if<Stop>(&topology)) return std::move(*stop);
  o.topology = std::get<sdk::Topology>(std::move(topology));
  return o;
}

std::variant<Observed, Stop> Observe::run(const std::string& ns, const std::string& dha_name,
                                          const model::DhaSpec& spec, const PredictiveContext* predictive,
                                          const ReadNotice& notice) const {
  auto read = target(ns, spec, notice);
  if (auto* stop = std::get_if<Stop>(&read)) return std::move(*stop);
  Observed o = std::get<Observed>(std::move(read));
  const std::optional<std::int32_t> current =
      o.topology.current_replicas ? std::optional<std::int32_t>(static_cast<std::int32_t>(
                                        std::clamp<std::int64_t>(*o.topology.current_replicas, 0, INT32_MAX)))
                                  : std::nullopt;
  if (!o.topology.scalable) return Stop{kNotScalable, o.topology.reason, current};
  // A target without a replicas value is not "0 replicas".
  if (!current) return Stop{kNotScalable, "target has no replicas value", std::nullopt};

  const ObserveRequest request{ns, dha_name, spec, *o.target.engine, *o.target.object, o.topology, predictive};
  o.signals = signals(request, notice);
  for (const auto* list : {&o.signals.health_causes, &o.signals.metric_causes, &o.signals.problems})
    for (const auto& problem : *list) spdlog::info("observe: {}", problem);
  for (const auto& note : o.signals.notes) spdlog::debug("observe: {}", note);
  return o;
}

Signals Observe::signals(const ObserveRequest& r, const ReadNotice& notice) const {
  Signals out;
  auto& obs = out.observation;
  obs.current_replicas = saturate_int32(r.topology.current_replicas.value_or(0));
  obs.primary_count = saturate_int32(r.topology.primary_count);
  obs.quorum_floor = saturate_int32(r.topology.quorum_floor);
  observe_health(r, notice, out);
  observe_quota(r, out);
  observe_metrics(r, out);
  return out;
}

// The health object fails closed: missing, unreadable, or not (yet) telling health all mean
// "unknown", which the Health gate turns into a HealthUnknown freeze.
void Observe::observe_health(const ObserveRequest& r, const ReadNotice& notice, Signals& out) const {
  auto& obs = out.observation;
  obs.health_known = false;
  obs.available_replicas = obs.current_replicas;
  const sdk::HealthSource& source = r.topology.health;
  kube::ObjectPtr object;
  if (source.source == sdk::HealthSource::Source::kObject) {
    kube::ResourceRef ref{source.api_group, source.version, source.plural, r.namespace_name, source.name};
    out.health_object = ref;
    if (notice) notice(ref);
    const std::string named = source.kind + " " + r.namespace_name + "/" + source.name;
    try {
      object = reader_.get(ref);
    } catch (const std::exception& e) {
      out.health_causes.push_back(named + " unreadable: " + e.what());
      return;
    }
    if (!object) {
      out.health_causes.push_back(named + " not found");
      return;
    }
  }
  const rapidjson::Value& health_object = object ? static_cast<const rapidjson::Value&>(*object) : r.target;
  const std::string request = sdk::HealthRequest{&r.target, &health_object}.to_json();
  const auto* instance = r.engine.instance;
  const auto result = instance->call(instance->engine()->health, request);
  if (!result.ok()) {
    out.health_causes.push_back("the engine adapter could not tell health: " + result.error);
    return;
  }
  try {
    const auto health = sdk::Health::from_json(sdk::json::parse(result.output, "health"));
    obs.health_known = true;
    obs.operational = health.operational;
    obs.available_replicas = saturate_int32(health.available_replicas);
  } catch (const std::exception& e) {
    out.health_causes.push_back(std::string("health answer of the engine adapter unreadable: ") + e.what());
  }
}

std::optional<std::int32_t> quota_ceiling(const kube::ObjectReader& reader, const std::string& ns,
                                          const sdk::Topology& topology, std::int32_t current, std::string& problem) {
  std::optional<std::string> cpu, memory;
  if (topology.resources) {
    cpu = topology.resources->cpu;
    memory = topology.resources->memory;
  }
  const auto per_pod = per_pod_resources(cpu, memory, topology.resources_preset);
  if (!per_pod) return std::nullopt;
  std::vector<kube::ObjectPtr> items;
  try {
    items = reader.list(kube::resources::resource_quotas(ns));
  } catch (const std::exception& e) {
    problem = std::string("resource quotas unreadable (no ceiling applied): ") + e.what();
    return std::nullopt;
  }
  std::vector<const rapidjson::Value*> quotas;
  for (const auto& item : items) quotas.push_back(item.get());
  return max_replicas_within_quota(quotas, current, *per_pod);
}

// A list error or no quota means no ceiling.
void Observe::observe_quota(const ObserveRequest& r, Signals& out) const {
  std::string problem;
  out.observation.quota_max_replicas =
      quota_ceiling(reader_, r.namespace_name, r.topology, out.observation.current_replicas, problem);
  if (!problem.empty()) out.problems.push_back(std::move(problem));
}

std::optional<std::string> Observe::monitoring_namespace(const std::string& ns,
                                                         std::vector<std::string>& problems) const {
  try {
    const auto object = reader_.get(kube::resources::namespaces().named(ns));
    if (!object) return std::nullopt;
    const auto labels = kube::labels_of(*object);
    auto it = labels.find(kMonitoringNamespaceLabel);
    if (it == labels.end() || it->second.empty()) return std::nullopt;
    return it->second;
  } catch (const std::exception& e) {
    problems.push_back("namespace " + ns + " unreadable: " + e.what());
    return std::nullopt;
  }
}

std::optional<MetricQueryResult> Observe::grouped_reading(const std::string& grouped, const sdk::GroupedQueries& g,
                                                          const ObserveRequest& r,
                                                          const std::optional<std::string>& monitoring_ns,
                                                          Aggregation how, const std::string& what) const {
  const tenancy::TargetLabels target{r.namespace_name, kube::name_of(r.target), r.topology.release_name};
  const auto values = target_label_values(g.by, target);
  if (!values || !tenancy::is_namespace_wide(grouped)) return std::nullopt;
  const GroupedQueryKey key{r.namespace_name, monitoring_ns, r.engine.target.api_group + "/" + r.engine.target.kind,
                            what, grouped};
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(options_.clock->wall_now().time_since_epoch()).count();
  bool fetched = false;
  const auto answer = grouped_.get(
      key, now,
      [&] {
        return fetch_series(*plugins_.metric_source(), grouped, {r.namespace_name, "", ""}, monitoring_ns,
                            options_.query_timeout_seconds, what);
      },
      fetched);
  if (fetched) count("grouped", answer->ok() ? "ok" : answer->result.outcome);
  if (!answers_for_each_target(*answer)) return std::nullopt;
  return select_target(*answer, *values, how, what);
}

std::optional<double> Observe::query(const std::string& query_template, const std::string& grouped,
                                     const sdk::Queries& queries, const ObserveRequest& r, Aggregation how,
                                     const std::string& what, std::vector<std::string>& problems, Signals& out) const {
  std::optional<MetricQueryResult> result;
  if (options_.grouped_queries && !grouped.empty() && queries.grouped)
    result = grouped_reading(grouped, *queries.grouped, r, out.monitoring_namespace, how, what);
  const bool from_group = result.has_value();
  if (!result) {
    const tenancy::TargetLabels target{r.namespace_name, kube::name_of(r.target), r.topology.release_name};
    result = run_metric_query(*plugins_.metric_source(), query_template, target, out.monitoring_namespace,
                              options_.query_timeout_seconds, how, what);
    count("target", result->outcome);
  }
  if (!result->value) problems.push_back(result->problem);
  out.readings.push_back({what, result->query, how, result->series, from_group, result->value,
                          result->value ? "" : result->status + ": " + result->detail});
  return result->value;
}

// averageUtilization targets are percentages of the CPU request of a read replica (the HPA's
// way): the CPU reading (millicores, summed over the read replicas) becomes the same sum in
// percent, so the proportional formula compares like with like. Without a known request there
// is no percentage to compare: the metric is unavailable, and the cause says why. 1 for a metric
// compared as it is read.
std::optional<double> Observe::utilization_factor(const ObserveRequest& r, const std::string& type,
                                                  std::vector<std::string>& causes) const {
  const bool wanted = std::any_of(r.spec.metrics.begin(), r.spec.metrics.end(), [&](const model::MetricSpec& m) {
    return m.is_utilization() && model::to_string(m.type) == type;
  });
  if (!wanted) return 1.0;
  std::optional<std::string> cpu, memory;
  if (r.topology.resources) {
    cpu = r.topology.resources->cpu;
    memory = r.topology.resources->memory;
  }
  const auto per_pod = per_pod_resources(cpu, memory, r.topology.resources_preset);
  if (!per_pod || per_pod->cpu_milli <= 0) {
    causes.push_back("averageUtilization of " + type +
                     " needs the CPU request of a read replica, and the target sets neither resources nor a preset");
    return std::nullopt;
  }
  return 100.0 / static_cast<double>(per_pod->cpu_milli);
}

// The factors of every driver metric compared in another unit than it is read in.
std::map<std::string, double> Observe::utilization_scale(const ObserveRequest& r,
                                                         std::vector<std::string>& causes) const {
  std::map<std::string, double> scale;
  for (const auto& type : metric_types_of(r.spec)) {
    const auto factor = utilization_factor(r, type, causes);
    if (factor && *factor != 1.0) scale[type] = *factor;
  }
  return scale;
}

void Observe::observe_metrics(const ObserveRequest& r, Signals& out) const {
  auto& obs = out.observation;
  for (const auto& m : r.spec.metrics) obs.metrics.push_back({std::string(model::to_string(m.type)), std::nullopt});
  if (plugins_.metric_source() == nullptr) {
    out.metric_causes.push_back("no metric source plugin is loaded");
    return;
  }
  sdk::Queries queries;
  try {
    std::vector<std::string> types;
    for (const auto& m : obs.metrics)
      if (std::find(types.begin(), types.end(), m.type) == types.end()) types.push_back(m.type);
    queries = engine_queries_for(r, types);
  } catch (const std::exception& e) {
    out.metric_causes.push_back(std::string("the engine adapter could not build its queries: ") + e.what());
    return;
  }
  out.monitoring_namespace = monitoring_namespace(r.namespace_name, out.problems);
  const auto& monitoring_ns = out.monitoring_namespace;
  for (auto& m : obs.metrics) {
    auto driver = queries.driver.find(m.type);
    if (driver == queries.driver.end()) {
      out.metric_causes.push_back("the engine adapter has no query for metric " + m.type);
      out.readings.push_back({m.type, "", Aggregation::kSum, 0, false, std::nullopt, out.metric_causes.back()});
      continue;
    }
    m.value = query(driver->second, grouped_template(queries, m.type), queries, r, Aggregation::kSum, m.type,
                    out.metric_causes, out);
    if (m.value) {
      const auto factor = utilization_factor(r, m.type, out.metric_causes);
      m.value = factor ? std::optional<double>(*m.value * *factor) : std::nullopt;
    }
  }
  // The lag brake only understands seconds (a byte lag compared with a seconds threshold was
  // the reference's Redis defect).
  // A signal not asked for is a reading without a query, saying why.
  const auto not_read = [&](const char* what, Aggregation how, std::string why) {
    out.readings.push_back({what, "", how, 0, false, std::nullopt, std::move(why)});
  };
  if (queries.lag_query.empty()) {
    not_read("lag", Aggregation::kMax, "the engine adapter has no query for this signal");
  } else if (queries.lag_unit != "seconds") {
    not_read("lag", Aggregation::kMax,
             "the lag query measures " + queries.lag_unit + ", which the lag brake does not use");
  } else {
    const std::string no_group;
    const auto& grouped = queries.grouped;
    obs.lag_seconds = query(queries.lag_query, grouped ? grouped->lag_query : no_group, queries, r, Aggregation::kMax,
                            "lag", out.notes, out);
  }
  // The lag brake needs the write activity only beside a lag in seconds, so without a lag reading
  // it is not asked for (one query per DHA saved) — unless a gate plugin is loaded: one that holds
  // on write bursts reads it on its own.
  if (queries.write_activity.empty()) {
    not_read("write activity", Aggregation::kSum, "the engine adapter has no query for this signal");
  } else if (!obs.lag_seconds && !plugins_.has_gate_plugins()) {
    not_read("write activity", Aggregation::kSum,
             "not read: without a lag in seconds only a gate plugin would read it, and none is loaded");
  } else {
    const std::string no_group;
    const auto& grouped = queries.grouped;
    obs.write_rate = query(queries.write_activity, grouped ? grouped->write_activity : no_group, queries, r,
                           Aggregation::kSum, "write activity", out.notes, out);
  }
  // A new replica's ready time as the adapter estimates it, only where it is used: by the Adaptive
  // policy, until the DHA has measured its own. A failed query is no estimate (a note, no freeze).
  // Nothing is listed when it is not read: an adapter without the query reads as it did before.
  const bool measured = r.predictive != nullptr && r.predictive->ready_seconds;
  if (!queries.ready_estimate.empty() && r.spec.behavior.policy == model::ScalingPolicy::Adaptive && !measured)
    obs.ready_estimate_seconds = query(queries.ready_estimate, queries.grouped_ready_estimate, queries, r,
                                       Aggregation::kSum, "ready estimate", out.notes, out);
  if (r.predictive != nullptr && wants_forecast(r.spec)) {
    const tenancy::TargetLabels target{r.namespace_name, kube::name_of(r.target), r.topology.release_name};
    std::vector<std::string> unused;  // a metric without its request is already unavailable
    const HistorySource history{
        *plugins_.metric_source(),   queries, target, monitoring_ns, options_.query_timeout_seconds,
        utilization_scale(r, unused)};
    PredictiveContext context = *r.predictive;
    context.ready_estimate_seconds = obs.ready_estimate_seconds;
    observe_forecast(history_, history, r.spec, context, obs);
  }
}

ObservedHistory Observe::history(const ObserveRequest& r, const history::Grid& grid, bool with_lag,
                                 double timeout_seconds) const {
  if (plugins_.metric_source() == nullptr) throw history::HistoryError(true, "no metric source plugin is loaded");
  const std::vector<std::string> types = metric_types_of(r.spec);
  sdk::Queries queries;
  try {
    queries = engine_queries_for(r, types);
  } catch (const std::exception& e) {
    throw history::HistoryError(false, std::string("the engine adapter could not build its queries: ") + e.what());
  }
  std::vector<std::string> causes;
  const auto scale = utilization_scale(r, causes);
  if (!causes.empty()) throw history::HistoryError(true, causes.front());
  ObservedHistory out;
  std::vector<std::string> problems;
  out.monitoring_namespace = monitoring_namespace(r.namespace_name, problems);
  const tenancy::TargetLabels target{r.namespace_name, kube::name_of(r.target), r.topology.release_name};
  history::Trace trace = history::read_trace({*plugins_.metric_source(), queries, target, out.monitoring_namespace,
                                              types, grid, timeout_seconds, with_lag, scale});
  out.trace = std::move(trace.trace);
  out.notes = std::move(problems);
  out.notes.insert(out.notes.end(), trace.notes.begin(), trace.notes.end());
  return out;
}

std::vector<std::string> metric_types_of(const model::DhaSpec& spec) {
  std::vector<std::string> types;
  for (const auto& m : spec.metrics) {
    std::string type(model::to_string(m.type));
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(std::move(type));
  }
  return types;
}

sdk::Queries engine_queries_for(const ObserveRequest& r, const std::vector<std::string>& metric_types) {
  sdk::QueryRequest request;
  request.namespace_name = r.namespace_name;
  request.name = kube::name_of(r.target);
  request.release_name = r.topology.release_name;
  request.api_group = r.engine.target.api_group;
  request.kind = r.engine.target.kind;
  request.metric_types = metric_types;
  const auto* engine = r.engine.instance;
  const auto result = engine->call(engine->engine()->queries, request.to_json());
  if (!result.ok()) throw std::runtime_error(result.error);
  return sdk::Queries::from_json(sdk::json::parse(result.output, "queries"));
}

}  // namespace dha::pipeline
