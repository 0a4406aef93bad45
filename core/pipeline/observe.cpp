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

Observe::Observe(const op::CachedReader& reader, const op::PluginSet& plugins, op::SelfMetrics& metrics,
                 kube::OwnerIndex& owners, ObserveOptions options, WatchRequest watch)
    : reader_(reader),
      plugins_(plugins),
      metrics_(metrics),
      owners_(owners),
      options_(options),
      watch_(std::move(watch)),
      grouped_(options.grouped_answer_seconds) {
  if (options_.clock == nullptr) options_.clock = &kube::SystemClock::instance();
}

std::variant<Observed, Stop> Observe::run(const std::string& ns, const std::string& dha_name,
                                          const model::DhaSpec& spec, const PredictiveContext* predictive) const {
  auto located = locate_target(plugins_, *spec.target_ref, ns);
  if (auto* stop = std::get_if<Stop>(&located)) return std::move(*stop);
  Observed o{std::get<Target>(std::move(located)), {}, {}};
  const std::string dha_key = ns + "/" + dha_name;
  owners_.set(dha_key, {kube::secondary_key(o.target.ref, ns, o.target.ref.name)});
  if (watch_) watch_(o.target.ref.collection().in_namespace(""));
  if (auto stop = read_target(o.target, [this](const kube::ResourceRef& ref) { return reader_.get(ref); }))
    return std::move(*stop);

  auto topology = read_topology(o.target);
  if (auto* stop = std::get_if<Stop>(&topology)) return std::move(*stop);
  o.topology = std::get<sdk::Topology>(std::move(topology));
  const std::optional<std::int32_t> current =
      o.topology.current_replicas
          ? std::optional<std::int32_t>(static_cast<std::int32_t>(
                std::clamp<std::int64_t>(*o.topology.current_replicas, 0, INT32_MAX)))
          : std::nullopt;
  if (!o.topology.scalable) return Stop{kNotScalable, o.topology.reason, current};
  // A target without a replicas value is not "0 replicas".
  if (!current) return Stop{kNotScalable, "target has no replicas value", std::nullopt};

  o.signals = signals({ns, dha_name, spec, *o.target.engine, *o.target.object, o.topology, predictive});
  std::vector<std::string> secondaries{kube::secondary_key(o.target.ref, ns, o.target.ref.name)};
  if (const auto& health = o.signals.health_object) {
    secondaries.push_back(kube::secondary_key(*health, ns, health->name));
    if (watch_) watch_(health->collection().in_namespace(""));
  }
  owners_.set(dha_key, secondaries);
  for (const auto* list : {&o.signals.health_causes, &o.signals.metric_causes, &o.signals.problems})
    for (const auto& problem : *list) spdlog::info("observe: {}", problem);
  for (const auto& note : o.signals.notes) spdlog::debug("observe: {}", note);
  return o;
}

Signals Observe::signals(const ObserveRequest& r) const {
  Signals out;
  auto& obs = out.observation;
  obs.current_replicas = saturate_int32(r.topology.current_replicas.value_or(0));
  obs.primary_count = saturate_int32(r.topology.primary_count);
  obs.quorum_floor = saturate_int32(r.topology.quorum_floor);
  observe_health(r, out);
  observe_quota(r, out);
  observe_metrics(r, out);
  return out;
}

// The health object fails closed: missing, unreadable, or not (yet) telling health all mean
// "unknown", which the Health gate turns into a HealthUnknown freeze.
void Observe::observe_health(const ObserveRequest& r, Signals& out) const {
  auto& obs = out.observation;
  obs.health_known = false;
  obs.available_replicas = obs.current_replicas;
  const sdk::HealthSource& source = r.topology.health;
  kube::ObjectPtr object;
  if (source.source == sdk::HealthSource::Source::kObject) {
    kube::ResourceRef ref{source.api_group, source.version, source.plural, r.namespace_name, source.name};
    out.health_object = ref;
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

// A list error or no quota means no ceiling.
void Observe::observe_quota(const ObserveRequest& r, Signals& out) const {
  std::optional<std::string> cpu, memory;
  if (r.topology.resources) {
    cpu = r.topology.resources->cpu;
    memory = r.topology.resources->memory;
  }
  const auto per_pod = per_pod_resources(cpu, memory, r.topology.resources_preset);
  if (!per_pod) return;
  std::vector<kube::ObjectPtr> items;
  try {
    items = reader_.list(kube::resources::resource_quotas(r.namespace_name));
  } catch (const std::exception& e) {
    out.problems.push_back(std::string("resource quotas unreadable (no ceiling applied): ") + e.what());
    return;
  }
  std::vector<const rapidjson::Value*> quotas;
  for (const auto& item : items) quotas.push_back(item.get());
  out.observation.quota_max_replicas =
      max_replicas_within_quota(quotas, out.observation.current_replicas, *per_pod);
}

std::optional<std::string> Observe::monitoring_namespace(const std::string& ns, Signals& out) const {
  try {
    const auto object = reader_.get(kube::resources::namespaces().named(ns));
    if (!object) return std::nullopt;
    const auto labels = kube::labels_of(*object);
    auto it = labels.find(kMonitoringNamespaceLabel);
    if (it == labels.end() || it->second.empty()) return std::nullopt;
    return it->second;
  } catch (const std::exception& e) {
    out.problems.push_back("namespace " + ns + " unreadable: " + e.what());
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
  if (fetched) metrics_.count_metric_query("grouped", answer->ok() ? "ok" : answer->result.outcome);
  if (!answers_for_each_target(*answer)) return std::nullopt;
  return select_target(*answer, *values, how, what);
}

std::optional<double> Observe::query(const std::string& query_template, const std::string& grouped,
                                     const sdk::Queries& queries, const ObserveRequest& r,
                                     const std::optional<std::string>& monitoring_ns, Aggregation how,
                                     const std::string& what, std::vector<std::string>& problems) const {
  std::optional<MetricQueryResult> result;
  if (options_.grouped_queries && !grouped.empty() && queries.grouped)
    result = grouped_reading(grouped, *queries.grouped, r, monitoring_ns, how, what);
  if (!result) {
    const tenancy::TargetLabels target{r.namespace_name, kube::name_of(r.target), r.topology.release_name};
    result = run_metric_query(*plugins_.metric_source(), query_template, target, monitoring_ns,
                              options_.query_timeout_seconds, how, what);
    metrics_.count_metric_query("target", result->outcome);
  }
  if (!result->value) problems.push_back(result->problem);
  return result->value;
}

// averageUtilization targets are percentages of the CPU request of a read replica (the HPA's
// way): the CPU reading (millicores, summed over the read replicas) becomes the same sum in
// percent, so the proportional formula compares like with like. Without a known request there
// is no percentage to compare: the metric is unavailable, and the cause says why.
std::optional<double> Observe::as_utilization(const ObserveRequest& r, const std::string& type, double millicores,
                                              std::vector<std::string>& causes) const {
  const bool wanted = std::any_of(r.spec.metrics.begin(), r.spec.metrics.end(), [&](const model::MetricSpec& m) {
    return m.is_utilization() && model::to_string(m.type) == type;
  });
  if (!wanted) return millicores;
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
  return millicores * 100.0 / static_cast<double>(per_pod->cpu_milli);
}

void Observe::observe_metrics(const ObserveRequest& r, Signals& out) const {
  auto& obs = out.observation;
  for (const auto& m : r.spec.metrics) obs.metrics.push_back({std::string(model::to_string(m.type)), std::nullopt});
  if (plugins_.metric_source() == nullptr) {
    out.metric_causes.push_back("no metric source plugin is loaded");
    return;
  }
  sdk::QueryRequest request;
  request.namespace_name = r.namespace_name;
  request.name = kube::name_of(r.target);
  request.release_name = r.topology.release_name;
  request.api_group = r.engine.target.api_group;
  request.kind = r.engine.target.kind;
  for (const auto& m : obs.metrics)
    if (std::find(request.metric_types.begin(), request.metric_types.end(), m.type) == request.metric_types.end())
      request.metric_types.push_back(m.type);
  const auto* engine = r.engine.instance;
  const auto result = engine->call(engine->engine()->queries, request.to_json());
  sdk::Queries queries;
  try {
    if (!result.ok()) throw std::runtime_error(result.error);
    queries = sdk::Queries::from_json(sdk::json::parse(result.output, "queries"));
  } catch (const std::exception& e) {
    out.metric_causes.push_back(std::string("the engine adapter could not build its queries: ") + e.what());
    return;
  }
  const auto monitoring_ns = monitoring_namespace(r.namespace_name, out);
  for (auto& m : obs.metrics) {
    auto driver = queries.driver.find(m.type);
    if (driver == queries.driver.end()) {
      out.metric_causes.push_back("the engine adapter has no query for metric " + m.type);
      continue;
    }
    m.value = query(driver->second, grouped_template(queries, m.type), queries, r, monitoring_ns, Aggregation::kSum,
                    m.type, out.metric_causes);
    if (m.value) m.value = as_utilization(r, m.type, *m.value, out.metric_causes);
  }
  // The lag brake only understands seconds (a byte lag compared with a seconds threshold was
  // the reference's Redis defect).
  if (!queries.lag_query.empty() && queries.lag_unit == "seconds") {
    const std::string no_group;
    const auto& grouped = queries.grouped;
    obs.lag_seconds = query(queries.lag_query, grouped ? grouped->lag_query : no_group, queries, r, monitoring_ns,
                            Aggregation::kMax, "lag", out.notes);
    if (obs.lag_seconds && !queries.write_activity.empty())
      obs.write_rate = query(queries.write_activity, grouped ? grouped->write_activity : no_group, queries, r,
                             monitoring_ns, Aggregation::kSum, "write activity", out.notes);
  }
  if (r.predictive != nullptr && wants_forecast(r.spec)) {
    const tenancy::TargetLabels target{r.namespace_name, kube::name_of(r.target), r.topology.release_name};
    const HistorySource history{*plugins_.metric_source(), queries, target, monitoring_ns,
                                options_.query_timeout_seconds};
    observe_forecast(history_, history, r.spec, *r.predictive, obs);
  }
}

}  // namespace dha::pipeline
