#include "dha/model/decision_state.hpp"

#include <cmath>

#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"

namespace dha::model {

using json::child;

DecisionState parse_decision_state(const rapidjson::Value& v, const std::string& path) {
  json::require_object(v, path);
  DecisionState state;
  if (const auto* recs = json::find(v, "recommendations")) {
    const std::string rp = child(path, "recommendations");
    json::require_array(*recs, rp);
    for (rapidjson::SizeType i = 0; i < recs->Size(); ++i) {
      const std::string ip = json::index(rp, i);
      const auto& r = (*recs)[i];
      json::require_object(r, ip);
      const auto time = json::optional_int64(r, "time", ip);
      if (!time) throw InputError(child(ip, "time"), "required");
      const auto replicas = json::optional_int32(r, "replicas", ip, 0);
      if (!replicas) throw InputError(child(ip, "replicas"), "required");
      state.recommendations.push_back({*time, *replicas});
    }
  }
  state.in_flight_since = json::optional_int64(v, "inFlightSince", path);
  state.last_applied_replicas = json::optional_int32(v, "lastAppliedReplicas", path, 0);
  state.last_converged_replicas = json::optional_int32(v, "lastConvergedReplicas", path, 0);
  state.last_scale_time = json::optional_int64(v, "lastScaleTime", path);
  if (const auto* b = json::find(v, "backoff")) {
    const std::string bp = child(path, "backoff");
    json::require_object(*b, bp);
    Backoff backoff;
    const auto replicas = json::optional_int32(*b, "replicas", bp, 0);
    if (!replicas) throw InputError(child(bp, "replicas"), "required");
    const auto until = json::optional_int64(*b, "until", bp);
    if (!until) throw InputError(child(bp, "until"), "required");
    backoff.replicas = *replicas;
    backoff.until = *until;
    backoff.count = json::optional_int32(*b, "count", bp, 1).value_or(1);
    state.backoff = backoff;
  }
  if (const auto* d = json::find(v, "lastDemand"); d != nullptr && !d->IsNull()) {
    const std::string dp = child(path, "lastDemand");
    json::require_object(*d, dp);
    const auto time = json::optional_int64(*d, "time", dp);
    if (!time) throw InputError(child(dp, "time"), "required");
    const auto reads = json::optional_number(*d, "readReplicas", dp);
    if (!reads || !std::isfinite(*reads) || *reads < 0)
      throw InputError(child(dp, "readReplicas"), "required, a number >= 0");
    state.last_demand = Demand{*time, *reads};
  }
  state.ready_seconds = json::optional_int64(v, "readySeconds", path);
  if (state.ready_seconds && *state.ready_seconds < 0) throw InputError(child(path, "readySeconds"), "must be >= 0");
  return state;
}

rapidjson::Value decision_state_to_json(const DecisionState& s, rapidjson::Document::AllocatorType& a) {
  using rapidjson::Value;
  auto opt = [](const auto& o) { return o ? Value(*o) : Value(rapidjson::kNullType); };
  Value out(rapidjson::kObjectType);
  Value recs(rapidjson::kArrayType);
  for (const auto& r : s.recommendations) {
    Value e(rapidjson::kObjectType);
    e.AddMember("time", r.time, a);
    e.AddMember("replicas", r.replicas, a);
    recs.PushBack(e, a);
  }
  out.AddMember("recommendations", recs, a);
  out.AddMember("inFlightSince", opt(s.in_flight_since), a);
  out.AddMember("lastAppliedReplicas", opt(s.last_applied_replicas), a);
  out.AddMember("lastConvergedReplicas", opt(s.last_converged_replicas), a);
  out.AddMember("lastScaleTime", opt(s.last_scale_time), a);
  if (s.backoff) {
    Value b(rapidjson::kObjectType);
    b.AddMember("replicas", s.backoff->replicas, a);
    b.AddMember("until", s.backoff->until, a);
    b.AddMember("count", s.backoff->count, a);
    out.AddMember("backoff", b, a);
  } else {
    out.AddMember("backoff", Value(rapidjson::kNullType), a);
  }
  // Only the Adaptive policy keeps these; leaving them out otherwise keeps the output as it was.
  if (s.last_demand) {
    Value d(rapidjson::kObjectType);
    d.AddMember("time", s.last_demand->time, a);
    d.AddMember("readReplicas", s.last_demand->read_replicas, a);
    out.AddMember("lastDemand", d, a);
  }
  if (s.ready_seconds) out.AddMember("readySeconds", *s.ready_seconds, a);
  return out;
}

}  // namespace dha::model
