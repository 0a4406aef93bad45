#include "dha/model/status.hpp"

#include <cmath>

#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"
#include "dha/model/rfc3339.hpp"
#include "dha/model/trace_line.hpp"

namespace dha::model {

using json::child;
using rapidjson::Value;

std::string_view to_string(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::Scale:
      return "Scale";
    case DecisionKind::NoChange:
      return "NoChange";
    case DecisionKind::Freeze:
      return "Freeze";
    case DecisionKind::Rollback:
      return "Rollback";
  }
  return "NoChange";
}

std::optional<DecisionKind> parse_decision_kind(std::string_view text) {
  for (auto k : {DecisionKind::Scale, DecisionKind::NoChange, DecisionKind::Freeze, DecisionKind::Rollback})
    if (to_string(k) == text) return k;
  return std::nullopt;
}

namespace {

std::optional<std::int64_t> optional_time(const Value& obj, const char* name, const std::string& path) {
  const Value* v = json::find(obj, name);
  if (v == nullptr) return std::nullopt;
  const std::string p = child(path, name);
  const std::string text = json::to_string(*v, p);
  auto t = parse_rfc3339(text);
  if (!t) throw InputError(p, "not an RFC3339 time (\"" + text + "\")");
  return t;
}

std::int64_t required_time(const Value& obj, const char* name, const std::string& path) {
  auto t = optional_time(obj, name, path);
  if (!t) throw InputError(child(path, name), "required");
  return *t;
}

std::string optional_string(const Value& obj, const char* name, const std::string& path) {
  const Value* v = json::find(obj, name);
  return v == nullptr ? std::string() : json::to_string(*v, child(path, name));
}

Value str(const std::string& s, rapidjson::Document::AllocatorType& a) {
  return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

Value time_value(std::int64_t t, rapidjson::Document::AllocatorType& a) { return str(format_rfc3339(t), a); }

std::vector<TraceEntry> parse_trace(const Value& v, const std::string& path) {
  json::require_array(v, path);
  std::vector<TraceEntry> trace;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const std::string ip = json::index(path, i);
    json::require_object(v[i], ip);
    TraceEntry e;
    e.gate = optional_string(v[i], "gate", ip);
    e.in = json::optional_int32(v[i], "in", ip).value_or(0);
    e.out = json::optional_int32(v[i], "out", ip).value_or(0);
    e.reason = optional_string(v[i], "reason", ip);
    e.message = optional_string(v[i], "message", ip);
    trace.push_back(std::move(e));
  }
  return trace;
}

std::vector<TraceEntry> parse_trace_lines(const Value& v, const std::string& path) {
  json::require_array(v, path);
  std::vector<TraceEntry> trace;
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    const std::string ip = json::index(path, i);
    const std::string line = json::to_string(v[i], ip);
    auto entry = parse_trace_line(line);
    if (!entry) throw InputError(ip, "not \"<gate>: <in> -> <out>, <reason>: <message>\" (\"" + line + "\")");
    trace.push_back(std::move(*entry));
  }
  return trace;
}

}  // namespace

namespace {

// Reads the status one top-level field at a time. Strict: the first unreadable field throws.
// Tolerant: an unreadable field is recorded with its error and left at its default, and the
// others are read all the same.
DhaStatus read_fields(const Value& v, const std::string& path, std::vector<UnreadableField>* unreadable) {
  json::require_object(v, path);
  DhaStatus s;
  auto field = [&](const char* name, auto&& read) {
    if (unreadable == nullptr) return read();
    try {
      read();
    } catch (const std::exception& e) {
      unreadable->push_back({name, e.what()});
    }
  };
  field("observedGeneration",
        [&] { s.observed_generation = json::optional_int64(v, "observedGeneration", path).value_or(0); });
  field("currentReplicas", [&] { s.current_replicas = json::optional_int32(v, "currentReplicas", path); });
  field("desiredReplicas", [&] { s.desired_replicas = json::optional_int32(v, "desiredReplicas", path); });
  field("lastConvergedReplicas",
        [&] { s.state.last_converged_replicas = json::optional_int32(v, "lastConvergedReplicas", path, 0); });
  field("lastAppliedReplicas",
        [&] { s.state.last_applied_replicas = json::optional_int32(v, "lastAppliedReplicas", path, 0); });
  field("lastScaleTime", [&] { s.state.last_scale_time = optional_time(v, "lastScaleTime", path); });
  field("inFlightSince", [&] { s.state.in_flight_since = optional_time(v, "inFlightSince", path); });
  field("recommendations", [&] {
    const Value* recs = json::find(v, "recommendations");
    if (recs == nullptr) return;
    const std::string rp = child(path, "recommendations");
    json::require_array(*recs, rp);
    std::vector<Recommendation> read;
    for (rapidjson::SizeType i = 0; i < recs->Size(); ++i) {
      const std::string ip = json::index(rp, i);
      json::require_object((*recs)[i], ip);
      const auto replicas = json::optional_int32((*recs)[i], "replicas", ip, 0);
      if (!replicas) throw InputError(child(ip, "replicas"), "required");
      read.push_back({required_time((*recs)[i], "time", ip), *replicas});
    }
    s.state.recommendations = std::move(read);
  });
  field("backoff", [&] {
    const Value* b = json::find(v, "backoff");
    if (b == nullptr) return;
    const std::string bp = child(path, "backoff");
    json::require_object(*b, bp);
    const auto replicas = json::optional_int32(*b, "replicas", bp, 0);
    if (!replicas) throw InputError(child(bp, "replicas"), "required");
    s.state.backoff =
        Backoff{*replicas, required_time(*b, "until", bp), json::optional_int32(*b, "count", bp, 1).value_or(1)};
  });
  field("lastDemand", [&] {
    const Value* d = json::find(v, "lastDemand");
    if (d == nullptr) return;
    const std::string dp = child(path, "lastDemand");
    json::require_object(*d, dp);
    const auto reads = json::optional_number(*d, "readReplicas", dp);
    if (!reads || !std::isfinite(*reads) || *reads < 0)
      throw InputError(child(dp, "readReplicas"), "required, a number >= 0");
    s.state.last_demand = Demand{required_time(*d, "time", dp), *reads};
  });
  field("readySeconds", [&] { s.state.ready_seconds = json::optional_int64(v, "readySeconds", path); });
  field("currentMetrics", [&] {
    const Value* cms = json::find(v, "currentMetrics");
    if (cms == nullptr) return;
    const std::string cp = child(path, "currentMetrics");
    json::require_array(*cms, cp);
    std::vector<CurrentMetric> read;
    for (rapidjson::SizeType i = 0; i < cms->Size(); ++i) {
      const std::string ip = json::index(cp, i);
      json::require_object((*cms)[i], ip);
      CurrentMetric m;
      m.type = optional_string((*cms)[i], "type", ip);
      if (const Value* avg = json::find((*cms)[i], "averageValue"))
        m.average_value =
            avg->IsInt64() ? std::to_string(avg->GetInt64()) : json::to_string(*avg, child(ip, "averageValue"));
      read.push_back(std::move(m));
    }
    s.current_metrics = std::move(read);
  });
  field("lastDecision", [&] {
    const Value* ld = json::find(v, "lastDecision");
    if (ld == nullptr) return;
    const std::string lp = child(path, "lastDecision");
    json::require_object(*ld, lp);
    LastDecision d;
    d.time = required_time(*ld, "time", lp);
    const std::string kind = optional_string(*ld, "kind", lp);
    auto k = parse_decision_kind(kind);
    if (!k) throw InputError(child(lp, "kind"), "must be Scale, NoChange, Freeze or Rollback");
    d.kind = *k;
    d.raw_desired_replicas = json::optional_int32(*ld, "rawDesiredReplicas", lp).value_or(0);
    d.desired_replicas = json::optional_int32(*ld, "desiredReplicas", lp).value_or(0);
    d.reason = optional_string(*ld, "reason", lp);
    d.message = optional_string(*ld, "message", lp);
    // One line per gate since the compact trace; an operator before it wrote objects ("trace").
    if (const Value* g = json::find(*ld, "gates"))
      d.trace = parse_trace_lines(*g, child(lp, "gates"));
    else if (const Value* t = json::find(*ld, "trace"))
      d.trace = parse_trace(*t, child(lp, "trace"));
    s.last_decision = std::move(d);
  });
  field("targetDisplay", [&] { s.target_display = optional_string(v, "targetDisplay", path); });
  field("metricsDisplay", [&] { s.metrics_display = optional_string(v, "metricsDisplay", path); });
  field("currentDisplay", [&] { s.current_display = optional_string(v, "currentDisplay", path); });
  field("desiredDisplay", [&] { s.desired_display = optional_string(v, "desiredDisplay", path); });
  field("summary", [&] { s.summary = optional_string(v, "summary", path); });
  field("conditions", [&] {
    const Value* conds = json::find(v, "conditions");
    if (conds == nullptr) return;
    const std::string cp = child(path, "conditions");
    json::require_array(*conds, cp);
    std::vector<Condition> read;
    for (rapidjson::SizeType i = 0; i < conds->Size(); ++i) {
      const std::string ip = json::index(cp, i);
      json::require_object((*conds)[i], ip);
      Condition c;
      c.type = optional_string((*conds)[i], "type", ip);
      c.status = optional_string((*conds)[i], "status", ip);
      c.reason = optional_string((*conds)[i], "reason", ip);
      c.message = optional_string((*conds)[i], "message", ip);
      c.last_transition_time = optional_time((*conds)[i], "lastTransitionTime", ip).value_or(0);
      c.observed_generation = json::optional_int64((*conds)[i], "observedGeneration", ip).value_or(0);
      read.push_back(std::move(c));
    }
    s.conditions = std::move(read);
  });
  return s;
}

}  // namespace

DhaStatus parse_status(const Value& v, const std::string& path) { return read_fields(v, path, nullptr); }

StatusReading read_status(const Value& v, const std::string& path) {
  StatusReading r;
  r.status = read_fields(v, path, &r.unreadable);
  return r;
}

Value trace_to_json(const std::vector<TraceEntry>& trace, rapidjson::Document::AllocatorType& a) {
  Value out(rapidjson::kArrayType);
  for (const auto& e : trace) {
    Value o(rapidjson::kObjectType);
    o.AddMember("gate", str(e.gate, a), a);
    o.AddMember("in", e.in, a);
    o.AddMember("out", e.out, a);
    o.AddMember("reason", str(e.reason, a), a);
    o.AddMember("message", str(e.message, a), a);
    out.PushBack(o, a);
  }
  return out;
}

Value status_to_json(const DhaStatus& s, rapidjson::Document::AllocatorType& a) {
  Value out(rapidjson::kObjectType);
  out.AddMember("observedGeneration", s.observed_generation, a);
  if (s.current_replicas) out.AddMember("currentReplicas", *s.current_replicas, a);
  if (s.desired_replicas) out.AddMember("desiredReplicas", *s.desired_replicas, a);
  const DecisionState& st = s.state;
  if (st.last_converged_replicas) out.AddMember("lastConvergedReplicas", *st.last_converged_replicas, a);
  if (st.last_applied_replicas) out.AddMember("lastAppliedReplicas", *st.last_applied_replicas, a);
  if (st.last_scale_time) out.AddMember("lastScaleTime", time_value(*st.last_scale_time, a), a);
  if (st.in_flight_since) out.AddMember("inFlightSince", time_value(*st.in_flight_since, a), a);
  Value recs(rapidjson::kArrayType);
  for (const auto& r : st.recommendations) {
    Value e(rapidjson::kObjectType);
    e.AddMember("time", time_value(r.time, a), a);
    e.AddMember("replicas", r.replicas, a);
    recs.PushBack(e, a);
  }
  out.AddMember("recommendations", recs, a);
  if (st.backoff) {
    Value b(rapidjson::kObjectType);
    b.AddMember("replicas", st.backoff->replicas, a);
    b.AddMember("until", time_value(st.backoff->until, a), a);
    b.AddMember("count", st.backoff->count, a);
    out.AddMember("backoff", b, a);
  }
  if (st.last_demand) {
    Value d(rapidjson::kObjectType);
    d.AddMember("time", time_value(st.last_demand->time, a), a);
    d.AddMember("readReplicas", st.last_demand->read_replicas, a);
    out.AddMember("lastDemand", d, a);
  }
  if (st.ready_seconds) out.AddMember("readySeconds", *st.ready_seconds, a);
  Value cms(rapidjson::kArrayType);
  for (const auto& m : s.current_metrics) {
    Value e(rapidjson::kObjectType);
    e.AddMember("type", str(m.type, a), a);
    e.AddMember("averageValue", str(m.average_value, a), a);
    cms.PushBack(e, a);
  }
  out.AddMember("currentMetrics", cms, a);
  if (s.last_decision) {
    const LastDecision& d = *s.last_decision;
    Value ld(rapidjson::kObjectType);
    ld.AddMember("time", time_value(d.time, a), a);
    ld.AddMember("kind", str(std::string(to_string(d.kind)), a), a);
    ld.AddMember("rawDesiredReplicas", d.raw_desired_replicas, a);
    ld.AddMember("desiredReplicas", d.desired_replicas, a);
    ld.AddMember("reason", str(d.reason, a), a);
    ld.AddMember("message", str(d.message, a), a);
    // kubectl describe prints each object field on a line of its own: one line per gate keeps
    // the trace readable there. A trace the lines cannot hold exactly stays objects.
    if (fits_trace_lines(d.trace)) {
      Value gates(rapidjson::kArrayType);
      for (const auto& e : d.trace) gates.PushBack(str(trace_line(e), a), a);
      ld.AddMember("gates", gates, a);
    } else {
      ld.AddMember("trace", trace_to_json(d.trace, a), a);
    }
    out.AddMember("lastDecision", ld, a);
  }
  for (const auto& [name, text] :
       {std::pair{"targetDisplay", &s.target_display}, std::pair{"metricsDisplay", &s.metrics_display},
        std::pair{"currentDisplay", &s.current_display}, std::pair{"desiredDisplay", &s.desired_display},
        std::pair{"summary", &s.summary}})
    if (!text->empty()) out.AddMember(rapidjson::StringRef(name), str(*text, a), a);
  Value conds(rapidjson::kArrayType);
  for (const auto& c : s.conditions) {
    Value o(rapidjson::kObjectType);
    o.AddMember("type", str(c.type, a), a);
    o.AddMember("status", str(c.status, a), a);
    o.AddMember("reason", str(c.reason, a), a);
    o.AddMember("message", str(c.message, a), a);
    o.AddMember("lastTransitionTime", time_value(c.last_transition_time, a), a);
    o.AddMember("observedGeneration", c.observed_generation, a);
    conds.PushBack(o, a);
  }
  out.AddMember("conditions", conds, a);
  return out;
}

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

void set_condition(std::vector<Condition>& conditions, Condition condition, std::int64_t now) {
  for (auto& c : conditions) {
    if (c.type != condition.type) continue;
    condition.last_transition_time = c.status == condition.status ? c.last_transition_time : now;
    c = std::move(condition);
    return;
  }
  condition.last_transition_time = now;
  conditions.push_back(std::move(condition));
}

}  // namespace dha::model
