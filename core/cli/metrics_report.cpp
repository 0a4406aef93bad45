#include "metrics_report.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <climits>
#include <iostream>
#include <optional>

#include "dha/decide/formula.hpp"

namespace dha::cli {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// The reading of a signal, if it was read (a spec may name a metric type twice: the first).
const pipeline::SignalReading* reading_of(const pipeline::Signals& s, const std::string& what) {
  const auto it = std::find_if(s.readings.begin(), s.readings.end(),
                               [&](const pipeline::SignalReading& r) { return r.what == what; });
  return it == s.readings.end() ? nullptr : &*it;
}

void write_value(Writer& w, const std::optional<double>& v) {
  if (v) {
    w.Double(*v);
  } else {
    w.Null();
  }
}

std::int32_t clamp32(std::int64_t v) { return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, 0, INT32_MAX)); }

void write_identity(Writer& w, const model::DhaSpec& spec, const op::EngineBinding& engine, const std::string& ns) {
  w.Key("target");
  w.StartObject();
  w.Key("apiGroup");
  w.String(engine.target.api_group);
  w.Key("kind");
  w.String(engine.target.kind);
  w.Key("namespace");
  w.String(ns);
  w.Key("name");
  w.String(spec.target_ref->name);
  w.Key("engine");
  w.String(engine.instance->info().id);
  w.EndObject();
}

void write_target(Writer& w, const MetricsReport& r) {
  write_identity(w, r.spec, r.engine, r.namespace_name);
  w.Key("monitoringNamespace");
  if (r.signals.monitoring_namespace) {
    w.String(*r.signals.monitoring_namespace);
  } else {
    w.Null();
  }
}

// The JSON keys of the three kinds of signal, beside the observe stage's names for them.
struct Key {
  std::string json;  // "driver.ReadConnections", "lag", "writeActivity"
  std::string what;
};

std::vector<Key> keys_of(const MetricsReport& r) {
  std::vector<Key> keys;
  for (const auto& type : pipeline::metric_types_of(r.spec)) keys.push_back({"driver." + type, type});
  keys.push_back({"lag", "lag"});
  keys.push_back({"writeActivity", "write activity"});
  keys.push_back({"readyEstimate", "ready estimate"});  // only when read: an Adaptive DHA, not yet measured
  return keys;
}

void write_queries(Writer& w, const MetricsReport& r) {
  const auto query = [&](const std::string& what) {
    const auto* reading = reading_of(r.signals, what);
    w.String(reading ? reading->query : "");
  };
  w.Key("queries");
  w.StartObject();
  w.Key("driver");
  w.StartObject();
  for (const auto& type : pipeline::metric_types_of(r.spec)) {
    w.Key(type);
    query(type);
  }
  w.EndObject();
  w.Key("lag");
  query("lag");
  w.Key("writeActivity");
  query("write activity");
  if (reading_of(r.signals, "ready estimate") != nullptr) {
    w.Key("readyEstimate");
    query("ready estimate");
  }
  w.EndObject();
  // How the series of each query were combined into its value, and how many there were.
  w.Key("aggregation");
  w.StartObject();
  for (const auto& key : keys_of(r)) {
    const auto* reading = reading_of(r.signals, key.what);
    if (reading == nullptr || reading->query.empty()) continue;
    w.Key(key.json);
    w.String(std::string(pipeline::to_string(reading->how)) + " of " + std::to_string(reading->series) + " series" +
             (reading->grouped ? ", from the namespace's grouped answer" : ""));
  }
  w.EndObject();
}

// What the operator's observation holds: a driver metric in the unit its target compares (percent
// of the CPU request for an averageUtilization target), the lag and the write rate.
void write_values(Writer& w, const MetricsReport& r) {
  const auto& obs = r.signals.observation;
  w.Key("values");
  w.StartObject();
  w.Key("driver");
  w.StartObject();
  for (const auto& type : pipeline::metric_types_of(r.spec)) {
    w.Key(type);
    const auto it = std::find_if(obs.metrics.begin(), obs.metrics.end(), [&](const auto& m) { return m.type == type; });
    write_value(w, it == obs.metrics.end() ? std::nullopt : it->value);
  }
  w.EndObject();
  w.Key("lagSeconds");
  write_value(w, obs.lag_seconds);
  w.Key("writeRate");
  write_value(w, obs.write_rate);
  if (reading_of(r.signals, "ready estimate") != nullptr) {
    w.Key("readyEstimateSeconds");
    write_value(w, obs.ready_estimate_seconds);
  }
  w.EndObject();
}

// What the gates compare with each metric's target: the value per read-serving replica, as the
// operator's metric evaluation divides it.
void write_per_read_replica(Writer& w, const MetricsReport& r) {
  const std::int32_t replicas = r.replicas > 0 ? r.replicas : clamp32(r.topology.current_replicas.value_or(0));
  if (replicas <= 0) return;
  const std::int32_t readers = decide::read_replicas(replicas, clamp32(r.topology.primary_count));
  const auto& obs = r.signals.observation;
  w.Key("perReadReplica");
  w.StartObject();
  w.Key("replicas");
  w.Int(replicas);
  w.Key("readReplicas");
  w.Int(readers);
  w.Key("driver");
  w.StartObject();
  for (const auto& type : pipeline::metric_types_of(r.spec)) {
    w.Key(type);
    const auto it = std::find_if(obs.metrics.begin(), obs.metrics.end(), [&](const auto& m) { return m.type == type; });
    const bool known = it != obs.metrics.end() && it->value && readers > 0;
    write_value(w, known ? std::optional<double>(*it->value / readers) : std::nullopt);
  }
  w.EndObject();
  w.EndObject();
}

// Why each missing value is missing: the query's failure, or the cause that kept a reading from
// becoming a value (a utilization without a CPU request).
void write_errors(Writer& w, const MetricsReport& r) {
  const auto& obs = r.signals.observation;
  w.Key("errors");
  w.StartObject();
  for (const auto& key : keys_of(r)) {
    const auto* reading = reading_of(r.signals, key.what);
    std::string error = reading ? reading->error : "";
    const bool driver = key.json.rfind("driver.", 0) == 0;
    if (driver && error.empty()) {
      const auto it =
          std::find_if(obs.metrics.begin(), obs.metrics.end(), [&](const auto& m) { return m.type == key.what; });
      if (it != obs.metrics.end() && !it->value)
        for (const auto& cause : r.signals.metric_causes)
          if (cause.find(key.what) != std::string::npos) error = cause;
    }
    if (driver && reading == nullptr && error.empty() && !r.signals.metric_causes.empty())
      error = r.signals.metric_causes.front();
    if (error.empty()) continue;
    w.Key(key.json);
    w.String(error);
  }
  w.EndObject();
}

}  // namespace

bool any_query_failed(const pipeline::Signals& signals) {
  return std::any_of(signals.readings.begin(), signals.readings.end(),
                     [](const pipeline::SignalReading& r) { return !r.query.empty() && !r.value; });
}

void print_metrics_report(const MetricsReport& r) {
  rapidjson::StringBuffer out;
  Writer w(out);
  w.StartObject();
  write_target(w, r);
  write_queries(w, r);
  write_values(w, r);
  write_per_read_replica(w, r);
  write_errors(w, r);
  // What else could not be read (the namespace, quotas, health): the operator logs the same.
  w.Key("problems");
  w.StartArray();
  for (const auto* list : {&r.signals.problems, &r.signals.health_causes})
    for (const auto& problem : *list) w.String(problem);
  w.EndArray();
  w.EndObject();
  std::cout << out.GetString() << "\n";
}

void print_metrics_stop(const model::DhaSpec& spec, const op::EngineBinding& engine, const std::string& namespace_name,
                        const std::string& why) {
  rapidjson::StringBuffer out;
  Writer w(out);
  w.StartObject();
  write_identity(w, spec, engine, namespace_name);
  w.Key("errors");
  w.StartObject();
  w.Key("target");
  w.String(why);
  w.EndObject();
  w.EndObject();
  std::cout << out.GetString() << "\n";
}

}  // namespace dha::cli
