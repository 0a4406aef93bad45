#include "dha/model/observation.hpp"

#include <cmath>

#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"

namespace dha::model {

using json::child;

const MetricReading* Observation::find_metric(const std::string& type) const {
  for (const auto& m : metrics)
    if (m.type == type) return &m;
  return nullptr;
}

Observation parse_observation(const rapidjson::Value& v, const std::string& path) {
  json::require_object(v, path);
  Observation obs;
  const auto* current = json::find(v, "currentReplicas");
  if (current == nullptr) throw InputError(child(path, "currentReplicas"), "required");
  obs.current_replicas = json::to_int32(*current, child(path, "currentReplicas"), 0);
  obs.primary_count = json::optional_int32(v, "primaryCount", path, 0).value_or(1);
  obs.quorum_floor = json::optional_int32(v, "quorumFloor", path, 0).value_or(1);
  obs.health_known = json::optional_bool(v, "healthKnown", path).value_or(true);
  obs.operational = json::optional_bool(v, "operational", path).value_or(true);
  obs.available_replicas = json::optional_int32(v, "availableReplicas", path, 0).value_or(obs.current_replicas);

  if (const auto* metrics = json::find(v, "metrics")) {
    const std::string mp = child(path, "metrics");
    json::require_array(*metrics, mp);
    for (rapidjson::SizeType i = 0; i < metrics->Size(); ++i) {
      const std::string ip = json::index(mp, i);
      const auto& m = (*metrics)[i];
      json::require_object(m, ip);
      MetricReading r;
      const auto* type = json::find(m, "type");
      if (type == nullptr) throw InputError(child(ip, "type"), "required");
      r.type = json::to_string(*type, child(ip, "type"));
      r.value = json::optional_number(m, "value", ip);
      obs.metrics.push_back(std::move(r));
    }
  }
  obs.lag_seconds = json::optional_number(v, "lagSeconds", path);
  obs.write_rate = json::optional_number(v, "writeRate", path);
  obs.quota_max_replicas = json::optional_int32(v, "quotaMaxReplicas", path, 0);
  obs.ready_estimate_seconds = json::optional_number(v, "readyEstimateSeconds", path);
  if (const auto* f = json::find(v, "forecast"); f != nullptr && !f->IsNull()) {
    const std::string fp = child(path, "forecast");
    json::require_object(*f, fp);
    const auto reads = json::optional_number(*f, "readReplicas", fp);
    if (!reads || !std::isfinite(*reads) || *reads < 0)
      throw InputError(child(fp, "readReplicas"), "required, a number >= 0");
    const auto horizon = json::optional_int64(*f, "horizonSeconds", fp);
    if (!horizon || *horizon < 0) throw InputError(child(fp, "horizonSeconds"), "required, an integer >= 0");
    // The central estimate is optional (an input written before it existed decides as it did),
    // and never above the figure that includes the margin.
    const auto estimate = json::optional_number(*f, "estimateReadReplicas", fp);
    if (estimate && (!std::isfinite(*estimate) || *estimate < 0 || *estimate > *reads))
      throw InputError(child(fp, "estimateReadReplicas"), "a number >= 0 and at most readReplicas");
    obs.forecast = Forecast(*reads, *horizon, estimate);
  }
  return obs;
}

namespace {

// JSON has no NaN/Inf; they travel as the PromQL strings, which parse_observation accepts back.
rapidjson::Value number_or_null(const std::optional<double>& v, rapidjson::Document::AllocatorType& a) {
  if (!v) return rapidjson::Value(rapidjson::kNullType);
  if (std::isnan(*v)) return rapidjson::Value("NaN", a);
  if (std::isinf(*v)) return rapidjson::Value(*v > 0 ? "+Inf" : "-Inf", a);
  return rapidjson::Value(*v);
}

}  // namespace

rapidjson::Value observation_to_json(const Observation& obs, rapidjson::Document::AllocatorType& a) {
  using rapidjson::Value;
  Value out(rapidjson::kObjectType);
  out.AddMember("currentReplicas", obs.current_replicas, a);
  out.AddMember("primaryCount", obs.primary_count, a);
  out.AddMember("quorumFloor", obs.quorum_floor, a);
  out.AddMember("healthKnown", obs.health_known, a);
  out.AddMember("operational", obs.operational, a);
  out.AddMember("availableReplicas", obs.available_replicas, a);
  Value metrics(rapidjson::kArrayType);
  for (const auto& m : obs.metrics) {
    Value e(rapidjson::kObjectType);
    e.AddMember("type", Value(m.type, a), a);
    e.AddMember("value", number_or_null(m.value, a), a);
    metrics.PushBack(e, a);
  }
  out.AddMember("metrics", metrics, a);
  out.AddMember("lagSeconds", number_or_null(obs.lag_seconds, a), a);
  out.AddMember("writeRate", number_or_null(obs.write_rate, a), a);
  if (obs.quota_max_replicas)
    out.AddMember("quotaMaxReplicas", *obs.quota_max_replicas, a);
  else
    out.AddMember("quotaMaxReplicas", Value(rapidjson::kNullType), a);
  // Only when there is one: an observation without an estimate reads as it did before.
  if (obs.ready_estimate_seconds)
    out.AddMember("readyEstimateSeconds", number_or_null(obs.ready_estimate_seconds, a), a);
  return out;
}

}  // namespace dha::model
