#include "dha/model/spec.hpp"

#include <algorithm>
#include <cmath>

#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"

namespace dha::model {
namespace {

using json::child;

Quantity parse_target_quantity(const rapidjson::Value& v, const std::string& path) {
  // int-or-string: a JSON integer is the same quantity as its decimal text.
  std::string text;
  if (v.IsString()) {
    text.assign(v.GetString(), v.GetStringLength());  // all of it: "150\u0000junk" is not 150
  } else if (v.IsInt64()) {
    text = std::to_string(v.GetInt64());
  } else if (v.IsNumber()) {
    throw InputError(path, "not a quantity (a number must be an integer; write fractions as a string)");
  } else {
    throw InputError(path, "not a quantity");
  }
  std::string why;
  auto q = parse_quantity(text, &why);
  if (!q) throw InputError(path, "not a quantity (\"" + text + "\": " + why + ")");
  return *q;
}

// Exactly one of averageValue (a quantity) and averageUtilization (a percentage of the CPU
// request, for ReadCPUUtilization only), as the CRD's validation rules say.
void parse_metric_target(const rapidjson::Value& target, const std::string& path, MetricSpec& metric) {
  const auto* avg = json::find(target, "averageValue");
  const auto* utilization = json::find(target, "averageUtilization");
  if (avg != nullptr && utilization != nullptr)
    throw InputError(path, "set exactly one of averageValue and averageUtilization");
  if (utilization != nullptr) {
    const std::string up = child(path, "averageUtilization");
    if (metric.type != MetricType::ReadCPUUtilization)
      throw InputError(up, "averageUtilization is a percentage of CPU requests and applies to ReadCPUUtilization only");
    metric.average_utilization = json::to_int32(*utilization, up, 1);
    return;
  }
  if (avg == nullptr)
    throw InputError(child(path, "averageValue"), "required (or averageUtilization for ReadCPUUtilization)");
  metric.target = parse_target_quantity(*avg, child(path, "averageValue"));
}

ScalingRules parse_rules(const rapidjson::Value& obj, const std::string& path, ScalingRules rules) {
  json::require_object(obj, path);
  if (auto w = json::optional_int32(obj, "stabilizationWindowSeconds", path, 0))
    rules.stabilization_window_seconds = *w;
  if (auto s = json::optional_int32(obj, "step", path, 1)) rules.step = *s;
  return rules;
}

double parse_fraction(const rapidjson::Value& obj, const char* key, const std::string& path, double fallback) {
  const auto v = json::optional_number(obj, key, path);
  if (!v) return fallback;
  if (!std::isfinite(*v) || *v < 0 || *v >= 1) throw InputError(child(path, key), "must be a number in [0, 1)");
  return *v;
}

// The policy comes first: it decides the defaults of the windows and steps parsed after it.
void parse_policy(const rapidjson::Value& behavior, const std::string& path, DhaSpec& spec) {
  if (const auto* policy = json::find(behavior, "policy")) {
    const std::string text = json::to_string(*policy, child(path, "policy"));
    if (text == "Adaptive") {
      spec.behavior.policy = ScalingPolicy::Adaptive;
      spec.behavior.scale_up = {kAdaptiveScaleUpWindowSeconds, std::max(spec.max_replicas, 1)};
      spec.behavior.scale_down = {kAdaptiveScaleDownWindowSeconds, std::max(spec.max_replicas, 1)};
    } else if (text != "Windowed") {
      throw InputError(child(path, "policy"), "unsupported value \"" + text + "\" (Windowed or Adaptive)");
    }
  }
  if (const auto* adaptive = json::find(behavior, "adaptive")) {
    const std::string ap = child(path, "adaptive");
    json::require_object(*adaptive, ap);
    auto& rules = spec.behavior.adaptive;
    rules.up_margin = parse_fraction(*adaptive, "upMargin", ap, rules.up_margin);
    rules.down_hysteresis = parse_fraction(*adaptive, "downHysteresis", ap, rules.down_hysteresis);
    if (auto p = json::optional_bool(*adaptive, "predictive", ap)) rules.predictive = *p;
    if (auto f = json::optional_bool(*adaptive, "forecastOnly", ap)) rules.forecast_only = *f;
  }
}

TargetRef parse_target_ref(const rapidjson::Value& obj, const std::string& path) {
  json::require_object(obj, path);
  TargetRef ref;
  const auto* kind = json::find(obj, "kind");
  if (kind == nullptr) throw InputError(child(path, "kind"), "required");
  ref.kind = json::to_string(*kind, child(path, "kind"));
  const auto* name = json::find(obj, "name");
  if (name == nullptr) throw InputError(child(path, "name"), "required");
  ref.name = json::to_string(*name, child(path, "name"));
  if (ref.name.empty()) throw InputError(child(path, "name"), "must not be empty");
  if (const auto* group = json::find(obj, "apiGroup")) {
    ref.api_group = json::to_string(*group, child(path, "apiGroup"));
    if (ref.api_group.empty()) ref.api_group = kDefaultApiGroup;  // as the reconciler does
  }
  return ref;
}

}  // namespace

std::string_view to_string(MetricType type) {
  return type == MetricType::ReadCPUUtilization ? "ReadCPUUtilization" : "ReadConnections";
}

std::string_view to_string(ScalingPolicy policy) { return policy == ScalingPolicy::Adaptive ? "Adaptive" : "Windowed"; }

std::optional<MetricType> parse_metric_type(std::string_view text) {
  if (text == "ReadConnections") return MetricType::ReadConnections;
  if (text == "ReadCPUUtilization") return MetricType::ReadCPUUtilization;
  return std::nullopt;
}

double MetricSpec::target_in_query_unit() const {
  if (average_utilization) return *average_utilization;
  return type == MetricType::ReadCPUUtilization ? static_cast<double>(target.milli) : target.value;
}

std::string MetricSpec::target_text() const {
  return average_utilization ? std::to_string(*average_utilization) + "%" : target.text;
}

std::int64_t DhaSpec::longest_window_seconds() const {
  return std::max<std::int64_t>(behavior.scale_up.stabilization_window_seconds,
                                behavior.scale_down.stabilization_window_seconds);
}

DhaSpec parse_spec(const rapidjson::Value& v, const SpecParseOptions& options, const std::string& path) {
  json::require_object(v, path);
  DhaSpec spec;

  if (const auto* ref = json::find(v, "targetRef")) {
    spec.target_ref = parse_target_ref(*ref, child(path, "targetRef"));
  } else if (options.require_target_ref) {
    throw InputError(child(path, "targetRef"), "required");
  }

  const auto* min = json::find(v, "minReplicas");
  if (min == nullptr) throw InputError(child(path, "minReplicas"), "required");
  spec.min_replicas = json::to_int32(*min, child(path, "minReplicas"));
  if (spec.min_replicas < kMinimumReplicas)
    throw InputError(child(path, "minReplicas"),
                     "must be at least 2 (2 = one primary and one read replica; the count "
                     "is the total number of instances, the primary included)");
  const auto* max = json::find(v, "maxReplicas");
  if (max == nullptr) throw InputError(child(path, "maxReplicas"), "required");
  spec.max_replicas = json::to_int32(*max, child(path, "maxReplicas"), 2);
  if (spec.max_replicas < spec.min_replicas)
    throw InputError(child(path, "maxReplicas"), "maxReplicas must be greater than or equal to minReplicas");

  const auto* metrics = json::find(v, "metrics");
  const std::string metrics_path = child(path, "metrics");
  if (metrics == nullptr) throw InputError(metrics_path, "required");
  json::require_array(*metrics, metrics_path);
  if (metrics->Empty()) throw InputError(metrics_path, "must have at least 1 item");
  for (rapidjson::SizeType i = 0; i < metrics->Size(); ++i) {
    const std::string mp = json::index(metrics_path, i);
    const auto& m = (*metrics)[i];
    json::require_object(m, mp);
    MetricSpec metric;
    const auto* type = json::find(m, "type");
    if (type == nullptr) throw InputError(child(mp, "type"), "required");
    const std::string type_text = json::to_string(*type, child(mp, "type"));
    auto parsed = parse_metric_type(type_text);
    if (!parsed)
      throw InputError(child(mp, "type"),
                       "unsupported value \"" + type_text + "\" (ReadConnections or ReadCPUUtilization)");
    metric.type = *parsed;
    const auto* target = json::find(m, "target");
    if (target == nullptr) throw InputError(child(mp, "target"), "required");
    json::require_object(*target, child(mp, "target"));
    parse_metric_target(*target, child(mp, "target"), metric);
    spec.metrics.push_back(std::move(metric));
  }

  if (const auto* behavior = json::find(v, "behavior")) {
    const std::string bp = child(path, "behavior");
    json::require_object(*behavior, bp);
    parse_policy(*behavior, bp, spec);
    if (const auto* up = json::find(*behavior, "scaleUp"))
      spec.behavior.scale_up = parse_rules(*up, child(bp, "scaleUp"), spec.behavior.scale_up);
    if (const auto* down = json::find(*behavior, "scaleDown"))
      spec.behavior.scale_down = parse_rules(*down, child(bp, "scaleDown"), spec.behavior.scale_down);
    if (auto d = json::optional_int32(*behavior, "convergenceDeadlineSeconds", bp, 1, kMaxConvergenceDeadlineSeconds))
      spec.behavior.convergence_deadline_seconds = *d;
    if (auto t = json::optional_number(*behavior, "tolerance", bp)) {
      if (!std::isfinite(*t) || *t < 0 || *t > 1)
        throw InputError(child(bp, "tolerance"), "must be a number in [0, 1]");
      spec.behavior.tolerance = *t;
    }
    if (auto immediate = json::optional_bool(*behavior, "immediateFirstDecision", bp))
      spec.behavior.immediate_first_decision = *immediate;
  }

  if (const auto* constraints = json::find(v, "constraints")) {
    const std::string cp = child(path, "constraints");
    json::require_object(*constraints, cp);
    if (auto q = json::optional_bool(*constraints, "respectQuorum", cp)) spec.constraints.respect_quorum = *q;
    if (auto lag = json::optional_int32(*constraints, "maxReplicationLagSeconds", cp, 0))
      spec.constraints.max_replication_lag_seconds = *lag;
  }

  if (auto dry = json::optional_bool(v, "dryRun", path)) spec.dry_run = *dry;
  return spec;
}

rapidjson::Value spec_to_json(const DhaSpec& spec, rapidjson::Document::AllocatorType& a) {
  using rapidjson::Value;
  Value out(rapidjson::kObjectType);
  if (spec.target_ref) {
    Value ref(rapidjson::kObjectType);
    ref.AddMember("apiGroup", Value(spec.target_ref->api_group, a), a);
    ref.AddMember("kind", Value(spec.target_ref->kind, a), a);
    ref.AddMember("name", Value(spec.target_ref->name, a), a);
    out.AddMember("targetRef", ref, a);
  }
  out.AddMember("minReplicas", spec.min_replicas, a);
  out.AddMember("maxReplicas", spec.max_replicas, a);
  Value metrics(rapidjson::kArrayType);
  for (const auto& m : spec.metrics) {
    Value entry(rapidjson::kObjectType);
    entry.AddMember("type", Value(std::string(to_string(m.type)), a), a);
    Value target(rapidjson::kObjectType);
    if (m.average_utilization)
      target.AddMember("averageUtilization", *m.average_utilization, a);
    else
      target.AddMember("averageValue", Value(m.target.text, a), a);
    entry.AddMember("target", target, a);
    metrics.PushBack(entry, a);
  }
  out.AddMember("metrics", metrics, a);
  auto rules = [&a](const ScalingRules& r) {
    Value v(rapidjson::kObjectType);
    v.AddMember("stabilizationWindowSeconds", r.stabilization_window_seconds, a);
    v.AddMember("step", r.step, a);
    return v;
  };
  Value behavior(rapidjson::kObjectType);
  behavior.AddMember("policy", Value(std::string(to_string(spec.behavior.policy)), a), a);
  Value adaptive(rapidjson::kObjectType);
  adaptive.AddMember("upMargin", spec.behavior.adaptive.up_margin, a);
  adaptive.AddMember("downHysteresis", spec.behavior.adaptive.down_hysteresis, a);
  adaptive.AddMember("predictive", spec.behavior.adaptive.predictive, a);
  adaptive.AddMember("forecastOnly", spec.behavior.adaptive.forecast_only, a);
  behavior.AddMember("adaptive", adaptive, a);
  behavior.AddMember("scaleUp", rules(spec.behavior.scale_up), a);
  behavior.AddMember("scaleDown", rules(spec.behavior.scale_down), a);
  behavior.AddMember("convergenceDeadlineSeconds", spec.behavior.convergence_deadline_seconds, a);
  behavior.AddMember("tolerance", spec.behavior.tolerance, a);
  behavior.AddMember("immediateFirstDecision", spec.behavior.immediate_first_decision, a);
  out.AddMember("behavior", behavior, a);
  Value constraints(rapidjson::kObjectType);
  constraints.AddMember("respectQuorum", spec.constraints.respect_quorum, a);
  constraints.AddMember("maxReplicationLagSeconds", spec.constraints.max_replication_lag_seconds, a);
  out.AddMember("constraints", constraints, a);
  out.AddMember("dryRun", spec.dry_run, a);
  return out;
}

}  // namespace dha::model
