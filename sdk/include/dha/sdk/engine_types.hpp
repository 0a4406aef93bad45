#pragma once

// Typed C++ views of the dha.engine/1 documents (sdk/include/dha/ext/engine.h is the binding
// description of the JSON). Each type writes itself with to_json() and reads itself with
// from_json(); the plugin side uses one direction, the host the other, so both agree by
// construction.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dha/sdk/json.hpp"

namespace dha::sdk {

namespace detail {
template <class T>
std::string to_json_text(const T& value) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  value.write(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}
inline void write_optional_int(json::Writer& w, const std::optional<int64_t>& v) {
  if (v) {
    w.Int64(*v);
  } else {
    w.Null();
  }
}
}  // namespace detail

// One (apiGroup, kind) an engine adapter handles, and the actuator that changes its count.
struct TargetKind {
  std::string api_group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string actuator = "builtin.merge-patch";

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "apiGroup");
    json::write_string(w, api_group);
    json::write_key(w, "version");
    json::write_string(w, version);
    json::write_key(w, "kind");
    json::write_string(w, kind);
    json::write_key(w, "plural");
    json::write_string(w, plural);
    json::write_key(w, "actuator");
    json::write_string(w, actuator);
    w.EndObject();
  }
  static TargetKind from_json(const json::Value& v) {
    constexpr std::string_view what = "targets entry";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "targets: every entry must be an object");
    return TargetKind{json::require_string(v, "apiGroup", what), json::require_string(v, "version", what),
                      json::require_string(v, "kind", what), json::require_string(v, "plural", what),
                      json::string_or(v, "actuator", "builtin.merge-patch", what)};
  }
  bool operator==(const TargetKind&) const = default;
};

inline std::string targets_to_json(const std::vector<TargetKind>& targets) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartArray();
  for (const auto& t : targets) t.write(w);
  w.EndArray();
  return std::string(buffer.GetString(), buffer.GetSize());
}

inline std::vector<TargetKind> targets_from_json(const json::Value& v) {
  if (!v.IsArray()) throw Error(DHA_INVALID_ARGUMENT, "targets: expected a JSON array");
  std::vector<TargetKind> out;
  for (const auto& e : v.GetArray()) out.push_back(TargetKind::from_json(e));
  return out;
}

// Where health is read from: a separate object (the WorkloadMonitor) or the target itself.
struct HealthSource {
  enum class Source { kObject, kTarget };
  Source source = Source::kObject;
  std::string api_group;
  std::string version;
  std::string kind;
  std::string plural;
  std::string name;

  // The cozystack WorkloadMonitor named `name` in the target's namespace.
  static HealthSource workload_monitor(std::string name) {
    return HealthSource{Source::kObject,   "cozystack.io",     "v1alpha1",
                        "WorkloadMonitor", "workloadmonitors", std::move(name)};
  }
  static HealthSource target() { return HealthSource{Source::kTarget, "", "", "", "", ""}; }

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "source");
    if (source == Source::kTarget) {
      json::write_string(w, "target");
    } else {
      json::write_string(w, "object");
      json::write_key(w, "apiGroup");
      json::write_string(w, api_group);
      json::write_key(w, "version");
      json::write_string(w, version);
      json::write_key(w, "kind");
      json::write_string(w, kind);
      json::write_key(w, "plural");
      json::write_string(w, plural);
      json::write_key(w, "name");
      json::write_string(w, name);
    }
    w.EndObject();
  }
  static HealthSource from_json(const json::Value& v) {
    constexpr std::string_view what = "topology.health";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "topology: field 'health' must be an object");
    const std::string source = json::require_string(v, "source", what);
    if (source == "target") return target();
    if (source != "object") {
      throw Error(DHA_INVALID_ARGUMENT,
                  "topology.health: source must be \"object\" or \"target\", got \"" + source + "\"");
    }
    HealthSource h{Source::kObject,
                   json::require_string(v, "apiGroup", what),
                   json::require_string(v, "version", what),
                   json::require_string(v, "kind", what),
                   json::require_string(v, "plural", what),
                   json::require_string(v, "name", what)};
    if (h.name.empty()) throw Error(DHA_INVALID_ARGUMENT, "topology.health: name must not be empty");
    return h;
  }
  bool operator==(const HealthSource&) const = default;
};

// Per-pod resource request in Kubernetes quantity strings ("500m", "1Gi").
struct Resources {
  std::string cpu;
  std::string memory;
  bool operator==(const Resources&) const = default;
};

// What the adapter reads from a target object.
struct Topology {
  int64_t primary_count = 1;
  int64_t quorum_floor = 1;
  // false stops the DHA with NotScalable and `reason` (words for a tenant), which then wins over
  // the host's own reason for a missing count below.
  bool scalable = true;
  std::string reason;
  // nullopt when the object has no numeric replicas value (values::read_replicas), never 0. The
  // host stops such a target with NotScalable: with `reason` when `scalable` is false, else with
  // "target has no replicas value" (the bundled adapters set both, with kNoReplicasValueReason).
  std::optional<int64_t> current_replicas;
  std::string replicas_path = "spec.replicas";
  std::string release_name;
  HealthSource health;
  std::optional<Resources> resources;
  std::string resources_preset;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "primaryCount");
    w.Int64(primary_count);
    json::write_key(w, "quorumFloor");
    w.Int64(quorum_floor);
    json::write_key(w, "scalable");
    w.Bool(scalable);
    json::write_key(w, "reason");
    json::write_string(w, reason);
    json::write_key(w, "currentReplicas");
    detail::write_optional_int(w, current_replicas);
    json::write_key(w, "replicasPath");
    json::write_string(w, replicas_path);
    json::write_key(w, "releaseName");
    json::write_string(w, release_name);
    json::write_key(w, "health");
    health.write(w);
    json::write_key(w, "resources");
    if (resources) {
      w.StartObject();
      json::write_key(w, "cpu");
      json::write_string(w, resources->cpu);
      json::write_key(w, "memory");
      json::write_string(w, resources->memory);
      w.EndObject();
    } else {
      w.Null();
    }
    json::write_key(w, "resourcesPreset");
    json::write_string(w, resources_preset);
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }

  // Strict where a wrong guess would be unsafe: scalable, the floor, the path and the health
  // source must be present; the rest has the documented defaults.
  static Topology from_json(const json::Value& v) {
    constexpr std::string_view what = "topology";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "topology: expected a JSON object");
    Topology t;
    t.primary_count = json::integer_or(v, "primaryCount", 1, what);
    t.quorum_floor = json::require_integer(v, "quorumFloor", what);
    const std::optional<bool> scalable = json::optional_bool(v, "scalable", what);
    if (!scalable) throw json::field_error(what, "scalable", "present (a boolean)");
    t.scalable = *scalable;
    t.reason = json::string_or(v, "reason", "", what);
    t.current_replicas = json::optional_integer(v, "currentReplicas", what);
    t.replicas_path = json::require_string(v, "replicasPath", what);
    t.release_name = json::string_or(v, "releaseName", "", what);
    const json::Value* health = json::find(v, "health");
    if (health == nullptr) throw json::field_error(what, "health", "present (an object)");
    t.health = HealthSource::from_json(*health);
    if (const json::Value* r = json::optional_object(v, "resources", what)) {
      t.resources = Resources{json::require_string(*r, "cpu", "topology.resources"),
                              json::require_string(*r, "memory", "topology.resources")};
    }
    t.resources_preset = json::string_or(v, "resourcesPreset", "", what);
    if (t.primary_count < 0) throw Error(DHA_INVALID_ARGUMENT, "topology: primaryCount must be >= 0");
    if (t.quorum_floor < 0) throw Error(DHA_INVALID_ARGUMENT, "topology: quorumFloor must be >= 0");
    if (t.replicas_path.empty()) throw Error(DHA_INVALID_ARGUMENT, "topology: replicasPath must not be empty");
    return t;
  }
  bool operator==(const Topology&) const = default;
};

// The host's request for a target's queries.
struct QueryRequest {
  std::string namespace_name;
  std::string name;
  std::string release_name;
  std::string api_group;
  std::string kind;
  std::vector<std::string> metric_types;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "namespace");
    json::write_string(w, namespace_name);
    json::write_key(w, "name");
    json::write_string(w, name);
    json::write_key(w, "releaseName");
    json::write_string(w, release_name);
    json::write_key(w, "apiGroup");
    json::write_string(w, api_group);
    json::write_key(w, "kind");
    json::write_string(w, kind);
    json::write_key(w, "metricTypes");
    w.StartArray();
    for (const auto& m : metric_types) json::write_string(w, m);
    w.EndArray();
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static QueryRequest from_json(const json::Value& v) {
    constexpr std::string_view what = "queries input";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "queries input: expected a JSON object");
    QueryRequest r{json::require_string(v, "namespace", what),  json::require_string(v, "name", what),
                   json::string_or(v, "releaseName", "", what), json::string_or(v, "apiGroup", "", what),
                   json::string_or(v, "kind", "", what),        {}};
    if (const json::Value* types = json::optional_array(v, "metricTypes", what)) {
      for (const auto& t : types->GetArray()) {
        if (!t.IsString()) throw json::field_error(what, "metricTypes", "an array of strings");
        r.metric_types.emplace_back(json::view(t));
      }
    }
    return r;
  }
  bool operator==(const QueryRequest&) const = default;
};

namespace detail {
inline void write_string_map(json::Writer& w, const std::map<std::string, std::string>& m) {
  w.StartObject();
  for (const auto& [k, v] : m) {
    json::write_key(w, k);
    json::write_string(w, v);
  }
  w.EndObject();
}
inline std::map<std::string, std::string> read_string_map(const json::Value& object, std::string_view what) {
  std::map<std::string, std::string> out;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it) {
    if (!it->value.IsString()) throw json::field_error(what, json::view(it->name), "a string");
    out.emplace(std::string(json::view(it->name)), std::string(json::view(it->value)));
  }
  return out;
}
}  // namespace detail

// Since SDK 1.2: the same signals for every target of one namespace and kind at once, so that the
// host sends one query per signal and namespace instead of one per target. `by` names the labels
// that tell the targets apart in the answer, each with the template of the value that means
// "this target" (`${name}` or `${release}`, possibly inside other text); the queries keep every
// series the per-target ones would aggregate and aggregate `by` those labels, with the same
// function as the per-target query. Their only placeholder is `${namespace}`.
struct GroupedQueries {
  std::map<std::string, std::string> by;      // answer label -> value template for the target
  std::map<std::string, std::string> driver;  // metric type -> PromQL template
  std::string lag_query;                      // "" = the per-target lag query is used
  std::string write_activity;                 // "" = the per-target write query is used

  // `ready_estimate` (since SDK 1.3, Queries::grouped_ready_estimate): written when not empty.
  void write(json::Writer& w, std::string_view ready_estimate = {}) const {
    w.StartObject();
    json::write_key(w, "by");
    detail::write_string_map(w, by);
    json::write_key(w, "driver");
    detail::write_string_map(w, driver);
    json::write_key(w, "lag");
    json::write_string(w, lag_query);
    json::write_key(w, "writeActivity");
    json::write_string(w, write_activity);
    if (!ready_estimate.empty()) {
      json::write_key(w, "readyEstimate");
      json::write_string(w, ready_estimate);
    }
    w.EndObject();
  }
  static GroupedQueries from_json(const json::Value& v) {
    constexpr std::string_view what = "queries.grouped";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "queries.grouped: expected a JSON object");
    GroupedQueries g;
    g.by = detail::read_string_map(json::require_object(v, "by", what), "queries.grouped.by");
    if (g.by.empty()) throw Error(DHA_INVALID_ARGUMENT, "queries.grouped.by: names no label");
    if (const json::Value* driver = json::optional_object(v, "driver", what))
      g.driver = detail::read_string_map(*driver, "queries.grouped.driver");
    g.lag_query = json::string_or(v, "lag", "", what);
    g.write_activity = json::string_or(v, "writeActivity", "", what);
    return g;
  }
  bool operator==(const GroupedQueries&) const = default;
};

// Query templates for one target; see engine.h for the placeholder rules.
struct Queries {
  std::map<std::string, std::string> driver;  // metric type -> PromQL template
  std::string lag_query;                      // "" = no lag signal
  std::string lag_unit = "seconds";           // "seconds" or "bytes"
  std::string write_activity;                 // "" = no write signal
  std::optional<GroupedQueries> grouped;      // since SDK 1.2; absent: per-target queries only
  // Since SDK 1.3: the seconds a new replica of this target takes to be ready, estimated from
  // what it must copy (e.g. `88 + 11 * <database size in GiB>`); "" = no estimate. The host reads
  // it for an Adaptive DHA that has not measured a ready time of its own yet.
  std::string ready_estimate;
  // Since SDK 1.3: its namespace-wide form, written as `grouped.readyEstimate` (only with
  // `grouped`); "" = the per-target one is used. A field here rather than in GroupedQueries so
  // that adapters which brace-initialise GroupedQueries compile as before.
  std::string grouped_ready_estimate;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "driver");
    detail::write_string_map(w, driver);
    json::write_key(w, "lag");
    w.StartObject();
    json::write_key(w, "query");
    json::write_string(w, lag_query);
    json::write_key(w, "unit");
    json::write_string(w, lag_unit);
    w.EndObject();
    json::write_key(w, "writeActivity");
    json::write_string(w, write_activity);
    if (grouped) {
      json::write_key(w, "grouped");
      grouped->write(w, grouped_ready_estimate);
    }
    if (!ready_estimate.empty()) {
      json::write_key(w, "readyEstimate");
      json::write_string(w, ready_estimate);
    }
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static Queries from_json(const json::Value& v) {
    constexpr std::string_view what = "queries";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "queries: expected a JSON object");
    Queries q;
    if (const json::Value* driver = json::optional_object(v, "driver", what))
      q.driver = detail::read_string_map(*driver, "queries.driver");
    if (const json::Value* lag = json::optional_object(v, "lag", what)) {
      q.lag_query = json::string_or(*lag, "query", "", "queries.lag");
      q.lag_unit = json::string_or(*lag, "unit", "seconds", "queries.lag");
      if (q.lag_unit != "seconds" && q.lag_unit != "bytes") {
        throw Error(DHA_INVALID_ARGUMENT,
                    "queries.lag: unit must be \"seconds\" or \"bytes\", got \"" + q.lag_unit + "\"");
      }
    }
    q.write_activity = json::string_or(v, "writeActivity", "", what);
    if (const json::Value* grouped = json::find(v, "grouped"); grouped != nullptr && !grouped->IsNull()) {
      q.grouped = GroupedQueries::from_json(*grouped);
      q.grouped_ready_estimate = json::string_or(*grouped, "readyEstimate", "", "queries.grouped");
    }
    q.ready_estimate = json::string_or(v, "readyEstimate", "", what);
    return q;
  }
  bool operator==(const Queries&) const = default;
};

// health() input: borrowed views into the request document.
struct HealthRequest {
  const json::Value* target = nullptr;
  const json::Value* object = nullptr;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "target");
    if (target)
      target->Accept(w);
    else
      w.Null();
    json::write_key(w, "object");
    if (object)
      object->Accept(w);
    else
      w.Null();
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static HealthRequest from_json(const json::Value& v) {
    constexpr std::string_view what = "health input";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "health input: expected a JSON object");
    return HealthRequest{&json::require_object(v, "target", what), &json::require_object(v, "object", what)};
  }
};

struct Health {
  bool operational = false;
  int64_t available_replicas = 0;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "operational");
    w.Bool(operational);
    json::write_key(w, "availableReplicas");
    w.Int64(available_replicas);
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static Health from_json(const json::Value& v) {
    constexpr std::string_view what = "health";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "health: expected a JSON object");
    auto op = json::optional_bool(v, "operational", what);
    if (!op) throw json::field_error(what, "operational", "present (a boolean)");
    return Health{*op, json::require_integer(v, "availableReplicas", what)};
  }
  bool operator==(const Health&) const = default;
};

}  // namespace dha::sdk
