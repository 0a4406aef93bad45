#pragma once

// Typed views of the range_query documents of dha.metrics/1 (since ABI 1.1, ext/metrics.h).

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dha/ext/metrics.h"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"
#include "dha/sdk/metrics_types.hpp"

namespace dha::sdk {

struct RangeQuery {
  std::string query;
  std::string namespace_name;
  std::optional<std::string> monitoring_namespace;
  std::int64_t start = 0;  // unix seconds, the first evaluation
  std::int64_t end = 0;    // unix seconds, the last evaluation is at or before it
  std::int64_t step = 60;  // seconds between evaluations
  double timeout_seconds = 30;

  // Evaluations the range asks for: start, start + step, ... <= end.
  std::int64_t points() const { return step > 0 && end >= start ? (end - start) / step + 1 : 0; }

  void write(json::Writer& w) const {
    w.StartObject();
    detail::write_query_scope(w, query, namespace_name, monitoring_namespace);
    json::write_key(w, "start");
    w.Int64(start);
    json::write_key(w, "end");
    w.Int64(end);
    json::write_key(w, "step");
    w.Int64(step);
    json::write_key(w, "timeoutSeconds");
    w.Double(timeout_seconds);
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  // Refuses, with DHA_INVALID_ARGUMENT, a range no source should run: an empty query, end before
  // start, a step that is not positive, more than DHA_METRICS_MAX_RANGE_POINTS evaluations.
  static RangeQuery from_json(const json::Value& v) {
    constexpr std::string_view what = "range_query input";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "range_query input: expected a JSON object");
    RangeQuery q{json::require_string(v, "query", what),
                 json::string_or(v, "namespace", "", what),
                 json::optional_string(v, "monitoringNamespace", what),
                 json::require_integer(v, "start", what),
                 json::require_integer(v, "end", what),
                 json::require_integer(v, "step", what),
                 json::number_or(v, "timeoutSeconds", 30, what)};
    q.check();
    return q;
  }
  void check() const {
    const auto bad = [](const std::string& why) { throw Error(DHA_INVALID_ARGUMENT, "range_query input: " + why); };
    if (query.empty()) bad("query is empty");
    if (step <= 0) bad("step must be a positive number of seconds");
    if (end < start) bad("end is before start");
    if ((end - start) / step + 1 > DHA_METRICS_MAX_RANGE_POINTS) {
      bad("the range asks for " + std::to_string((end - start) / step + 1) + " steps, more than the " +
          std::to_string(DHA_METRICS_MAX_RANGE_POINTS) + " one query may; use a larger step or a shorter range");
    }
    if (!(timeout_seconds > 0) || !std::isfinite(timeout_seconds)) bad("timeoutSeconds must be a positive number");
  }
  bool operator==(const RangeQuery&) const = default;
};

struct Series {
  std::map<std::string, std::string> labels;
  std::vector<std::pair<std::int64_t, double>> points;  // (unix seconds, value), time increasing
  bool operator==(const Series&) const = default;
};

// A range result. Every value must be finite and at least one series must have a point (else it
// is DHA_NOT_FOUND): the export barrier enforces both on what a plugin returns.
struct RangeResult {
  std::vector<Series> series;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "series");
    w.StartArray();
    for (const auto& s : series) {
      w.StartObject();
      detail::write_labels(w, s.labels);
      json::write_key(w, "points");
      w.StartArray();
      for (const auto& [t, value] : s.points) {
        w.StartArray();
        w.Int64(t);
        w.Double(value);
        w.EndArray();
      }
      w.EndArray();
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static RangeResult from_json(const json::Value& v) {
    const auto bad = [](const std::string& why) { return Error(DHA_INVALID_ARGUMENT, "range result: " + why); };
    if (!v.IsObject()) throw bad("expected a JSON object");
    const json::Value* list = json::optional_array(v, "series", "range result");
    if (list == nullptr) throw bad("no \"series\" array");
    RangeResult out;
    for (const auto& e : list->GetArray()) {
      if (!e.IsObject()) throw bad("every series must be an object");
      Series s;
      s.labels = detail::read_labels(e, "series");
      const json::Value* points = json::optional_array(e, "points", "series");
      if (points == nullptr) throw bad("a series has no \"points\" array");
      for (const auto& p : points->GetArray()) {
        if (!p.IsArray() || p.Size() != 2 || !p[0].IsInt64() || !p[1].IsNumber())
          throw bad("a point is not [unix seconds, value]");
        if (!s.points.empty() && p[0].GetInt64() <= s.points.back().first)
          throw bad("points are not in increasing time");
        s.points.emplace_back(p[0].GetInt64(), p[1].GetDouble());
      }
      out.series.push_back(std::move(s));
    }
    return out;
  }
  bool operator==(const RangeResult&) const = default;
};

}  // namespace dha::sdk
