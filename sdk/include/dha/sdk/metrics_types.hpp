#pragma once

// Typed views of the dha.metrics/1 documents (sdk/include/dha/ext/metrics.h).

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"

namespace dha::sdk {
namespace detail {

// The fields every metric query starts with, instant and range alike.
inline void write_query_scope(json::Writer& w, const std::string& query, const std::string& namespace_name,
                              const std::optional<std::string>& monitoring_namespace) {
  json::write_key(w, "query");
  json::write_string(w, query);
  json::write_key(w, "namespace");
  json::write_string(w, namespace_name);
  json::write_key(w, "monitoringNamespace");
  if (monitoring_namespace)
    json::write_string(w, *monitoring_namespace);
  else
    w.Null();
}

// A series' labels, {"pod": "db-2", ...}, of a sample or a range series.
inline void write_labels(json::Writer& w, const std::map<std::string, std::string>& labels) {
  json::write_key(w, "labels");
  w.StartObject();
  for (const auto& [k, v] : labels) {
    json::write_key(w, k);
    json::write_string(w, v);
  }
  w.EndObject();
}
// The optional "labels" object of `entry`; `what` names it in errors ("sample", "series").
inline std::map<std::string, std::string> read_labels(const json::Value& entry, const std::string& what) {
  std::map<std::string, std::string> out;
  if (const json::Value* labels = json::optional_object(entry, "labels", what)) {
    for (auto it = labels->MemberBegin(); it != labels->MemberEnd(); ++it) {
      if (!it->value.IsString()) throw json::field_error(what + ".labels", json::view(it->name), "a string");
      out.emplace(std::string(json::view(it->name)), std::string(json::view(it->value)));
    }
  }
  return out;
}

}  // namespace detail

struct InstantQuery {
  std::string query;
  std::string namespace_name;
  std::optional<std::string> monitoring_namespace;  // from the namespace's label; may be absent
  double timeout_seconds = 10;

  void write(json::Writer& w) const {
    w.StartObject();
    detail::write_query_scope(w, query, namespace_name, monitoring_namespace);
    json::write_key(w, "timeoutSeconds");
    w.Double(timeout_seconds);
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static InstantQuery from_json(const json::Value& v) {
    constexpr std::string_view what = "instant_query input";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "instant_query input: expected a JSON object");
    InstantQuery q{json::require_string(v, "query", what), json::string_or(v, "namespace", "", what),
                   json::optional_string(v, "monitoringNamespace", what),
                   json::number_or(v, "timeoutSeconds", 10, what)};
    if (q.query.empty()) throw Error(DHA_INVALID_ARGUMENT, "instant_query input: query is empty");
    if (!(q.timeout_seconds > 0) || !std::isfinite(q.timeout_seconds)) {
      throw Error(DHA_INVALID_ARGUMENT, "instant_query input: timeoutSeconds must be a positive number");
    }
    return q;
  }
  bool operator==(const InstantQuery&) const = default;
};

struct Sample {
  std::map<std::string, std::string> labels;
  double value = 0;
  bool operator==(const Sample&) const = default;
};

// An instant vector. Every value must be finite, and an empty vector is not a result (it is
// DHA_NOT_FOUND): the export barrier enforces both on what a plugin returns.
struct Samples {
  std::vector<Sample> samples;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "samples");
    w.StartArray();
    for (const auto& s : samples) {
      w.StartObject();
      detail::write_labels(w, s.labels);
      json::write_key(w, "value");
      w.Double(s.value);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static Samples from_json(const json::Value& v) {
    constexpr std::string_view what = "samples";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "samples: expected a JSON object");
    const json::Value* list = json::optional_array(v, "samples", what);
    if (list == nullptr) throw json::field_error(what, "samples", "present (an array)");
    Samples out;
    for (const auto& e : list->GetArray()) {
      if (!e.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "samples: every entry must be an object");
      Sample s;
      s.labels = detail::read_labels(e, "sample");
      const auto value = json::optional_number(e, "value", "sample");
      if (!value) throw json::field_error("sample", "value", "present (a number)");
      s.value = *value;
      out.samples.push_back(std::move(s));
    }
    return out;
  }
  bool operator==(const Samples&) const = default;
};

}  // namespace dha::sdk
