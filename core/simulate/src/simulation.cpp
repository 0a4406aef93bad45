#include "dha/simulate/simulation.hpp"

#include <algorithm>
#include <cmath>

#include "dha/decide/adaptive_policy.hpp"
#include "dha/decide/saturating.hpp"
#include "dha/decide/seasonal_forecast.hpp"
#include "dha/gates/reasons.hpp"
#include "dha/model/input_error.hpp"

namespace dha::decide {
namespace {

// The simulated database: replicas being provisioned become available at their ready time.
class SimulatedTarget {
 public:
  explicit SimulatedTarget(std::int32_t replicas) : replicas_(replicas), ready_(replicas) {}

  std::int32_t replicas() const { return replicas_; }
  std::int32_t available(std::int64_t now) const {
    std::int32_t n = ready_;
    for (auto t : pending_) n += t <= now ? 1 : 0;
    return n;
  }
  void settle(std::int64_t now) {
    std::erase_if(pending_, [&](std::int64_t t) {
      if (t > now) return false;
      ++ready_;
      return true;
    });
  }
  void scale(std::int32_t to, std::int64_t now, std::int64_t provision) {
    for (; replicas_ < to; ++replicas_) pending_.push_back(now + provision);
    for (; replicas_ > to; --replicas_) {
      // Removing a replica drops one still starting first, as an operator scaling down would.
      if (!pending_.empty()) {
        pending_.pop_back();
      } else {
        --ready_;
      }
    }
  }

 private:
  std::int32_t replicas_;
  std::int32_t ready_;
  std::vector<std::int64_t> pending_;
};

bool above_target(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t t, std::int32_t available,
                  std::int32_t primaries) {
  const double reads = std::max(available - primaries, 1);
  for (const auto& m : spec.metrics) {
    const auto total = load.at(model::to_string(m.type), static_cast<double>(t));
    if (total && std::isfinite(*total) && *total / reads > m.target_in_query_unit()) return true;
  }
  return false;
}

// The largest count decide() may reach here, and the smallest it must keep.
std::int32_t ceiling_of(const model::DhaSpec& spec, const SimulationParams& params) {
  return params.quota_max_replicas ? std::min(spec.max_replicas, *params.quota_max_replicas) : spec.max_replicas;
}

std::int32_t floor_of(const model::DhaSpec& spec, const SimulationParams& params) {
  const std::int32_t quorum = spec.constraints.respect_quorum ? params.quorum_floor : 1;
  return std::min(std::max(spec.min_replicas, quorum), ceiling_of(spec, params));
}

// Accounts each second: cost, the clairvoyant bound, the shortfall below it, and overload by cause.
class Ledger {
 public:
  Ledger(const model::DhaSpec& spec, const LoadTrace& load, const SimulationParams& params, SimulationSummary& sum)
      : spec_(spec),
        load_(load),
        params_(params),
        sum_(sum),
        floor_(floor_of(spec, params)),
        ceiling_(ceiling_of(spec, params)) {}

  // Second `s` of the cycle whose decision was made at `decided_at`.
  void second(std::int64_t s, std::int64_t decided_at, const SimulatedTarget& target, bool held) {
    sum_.replica_seconds += target.replicas();
    std::int32_t unclamped = 0;
    if (auto n = needed_replicas(spec_, load_, static_cast<double>(s), params_.primary_count, floor_, ceiling_,
                                 &unclamped)) {
      sum_.bound_replica_seconds += *n;
      sum_.replica_seconds_bound_known += target.replicas();
      sum_.shortfall_replica_seconds += std::max(*n - target.replicas(), 0);
      need_unclamped_ = unclamped;
    } else {
      ++sum_.bound_unknown_seconds;  // nobody knows what an outage needed: not counted either way
    }
    if (!above_target(spec_, load_, s, target.available(s), params_.primary_count)) {
      overloaded_ = false;
      return;
    }
    if (!overloaded_) overload_start_ = s;
    overloaded_ = true;
    ++sum_.seconds_above_target;
    if (need_unclamped_ > ceiling_)
      ++sum_.overload_unavoidable;
    else if (target.available(s) < target.replicas())
      ++sum_.overload_provisioning;
    else if (overload_start_ > decided_at)
      ++sum_.overload_reaction;  // it began after the last decision: none could have seen it
    else if (held)
      ++sum_.overload_held;
    else
      ++sum_.overload_other;
  }

 private:
  const model::DhaSpec& spec_;
  const LoadTrace& load_;
  const SimulationParams& params_;
  SimulationSummary& sum_;
  std::int32_t floor_, ceiling_;
  std::int32_t need_unclamped_ = 0;  // the last known need: an outage keeps it for the causes
  bool overloaded_ = false;          // since overload_start_
  std::int64_t overload_start_ = 0;
};

}  // namespace

std::optional<std::int32_t> needed_replicas(const model::DhaSpec& spec, const LoadTrace& load, double time,
                                            std::int32_t primary_count, std::int32_t floor, std::int32_t ceiling,
                                            std::int32_t* unclamped) {
  double reads = 0;
  for (const auto& m : spec.metrics) {
    const auto total = load.at(model::to_string(m.type), time);
    if (!total) return std::nullopt;
    reads = std::max(reads, std::ceil(*total / m.target_in_query_unit()));
  }
  const std::int32_t need = saturating_add(saturate_to_int32(std::max(reads, 1.0)), primary_count);
  if (unclamped != nullptr) *unclamped = need;
  return std::clamp(need, floor, std::max(floor, ceiling));
}

namespace {

void check_inputs(const model::DhaSpec& spec, const LoadTrace& load, const SimulationParams& params) {
  for (const auto& m : spec.metrics)
    if (!load.has_column(model::to_string(m.type)))
      throw model::InputError("load",
                              "no column for metric " + std::string(model::to_string(m.type)) + " of the DHA spec");
  if (params.interval_seconds < 1) throw model::InputError("--interval", "must be at least 1 second");
  if (params.provision_seconds < 0) throw model::InputError("--provision-seconds", "must not be negative");
  if (params.initial_replicas < 1) throw model::InputError("--initial-replicas", "must be at least 1");
  if (load.end() - load.start() > kMaxSimulatedSeconds) throw model::InputError("load", "spans more than 90 days");
}

// What the operator would observe at t: the target's replicas, the trace's row at t, and for a
// predictive spec the forecast from the trace's rows before t. The step records the load and
// forecast it was shown.
model::Observation observation_at(const model::DhaSpec& spec, const LoadTrace& load, const SimulationParams& params,
                                  const SimulatedTarget& target, const model::DecisionState& state, bool predictive,
                                  std::int64_t t, SimulationStep& step) {
  model::Observation obs;
  obs.current_replicas = target.replicas();
  obs.available_replicas = target.available(t);
  obs.primary_count = params.primary_count;
  obs.quorum_floor = params.quorum_floor;
  obs.quota_max_replicas = params.quota_max_replicas;
  for (const auto& m : spec.metrics) {
    const std::string type(model::to_string(m.type));
    const auto total = load.at(type, static_cast<double>(t));
    obs.metrics.push_back({type, total});
    step.load.emplace_back(type, total);
  }
  // An engine adapter's ready-time estimate, when the trace has the column.
  obs.ready_estimate_seconds = load.at("readyEstimateSeconds", static_cast<double>(t));
  if (predictive) {
    const std::int64_t ready = ready_time(spec, obs, state).seconds;
    obs.forecast = seasonal_forecast(spec, load, t, forecast_horizon(spec, ready, params.interval_seconds));
    if (!obs.forecast) obs.forecast_missing = "the history holds no earlier period to forecast from";
    if (obs.forecast) {
      step.forecast = obs.forecast->read_replicas;
      step.forecast_estimate = obs.forecast->estimate;
      step.forecast_horizon = obs.forecast->horizon_seconds;
    }
  }
  obs.lag_seconds = load.at("lagSeconds", static_cast<double>(t));
  obs.write_rate = load.at("writeRate", static_cast<double>(t));
  return obs;
}

}  // namespace

SimulationResult simulate(const model::DhaSpec& spec, const LoadTrace& load, const SimulationParams& params) {
  check_inputs(spec, load, params);
  SimulationResult result;
  SimulatedTarget target(params.initial_replicas);
  auto& summary = result.summary;
  summary.min_replicas = summary.max_replicas = params.initial_replicas;
  const std::int64_t first = std::max(load.start(), params.start_at.value_or(load.start()));
  if (first >= load.end()) throw model::InputError("--start-at", "must be before the trace's last second");
  model::DecisionState state =
      params.initial_state ? params.initial_state(params.initial_replicas, first) : model::DecisionState{};
  const bool predictive = spec.behavior.policy == model::ScalingPolicy::Adaptive && spec.behavior.adaptive.predictive;
  summary.duration_seconds = load.end() - first;
  Ledger ledger(spec, load, params, summary);

  for (std::int64_t t = first; t <= load.end(); t += params.interval_seconds) {
    target.settle(t);
    SimulationStep step;
    const model::Observation obs = observation_at(spec, load, params, target, state, predictive, t, step);
    const Decision d = decide(spec, obs, state, t);
    step.time = t;
    step.current_replicas = obs.current_replicas;
    step.available_replicas = obs.available_replicas;
    step.desired_replicas = d.desired_replicas;
    step.raw_desired_replicas = d.raw_desired_replicas;
    step.kind = d.kind;
    step.applied = d.apply;
    step.reason = d.reason;
    step.message = d.message;
    step.lag_seconds = obs.lag_seconds;
    step.write_rate = obs.write_rate;
    if (d.apply) {
      target.scale(d.desired_replicas, t, params.provision_seconds);
      ++summary.scale_actions;
      if (d.kind == model::DecisionKind::Rollback) ++summary.rollbacks;
    }
    if (!d.able_to_scale) ++summary.freezes_by_reason[d.reason];
    // Waiting for our own scale is provisioning; any other freeze is a guardrail holding.
    const bool held = !d.able_to_scale && d.reason != gates::reasons::kScaleInFlight;
    state = d.next_state;
    result.steps.push_back(std::move(step));

    // Integrate cost and overload until the next cycle (or the end of the trace).
    const std::int64_t next = std::min(t + params.interval_seconds, load.end());
    for (std::int64_t s = t; s < next; ++s) ledger.second(s, t, target, held);
    summary.min_replicas = std::min(summary.min_replicas, target.replicas());
    summary.max_replicas = std::max(summary.max_replicas, target.replicas());
  }
  return result;
}

double bound_ratio(const SimulationSummary& s) {
  if (s.bound_replica_seconds <= 0) return 1.0;
  return static_cast<double>(s.replica_seconds_bound_known + s.shortfall_replica_seconds) /
         static_cast<double>(s.bound_replica_seconds);
}

rapidjson::Value simulation_to_json(const SimulationResult& r, rapidjson::Document::AllocatorType& a) {
  using rapidjson::Value;
  auto opt = [](const std::optional<double>& v) {
    return v && std::isfinite(*v) ? Value(*v) : Value(rapidjson::kNullType);
  };
  Value out(rapidjson::kObjectType);
  Value steps(rapidjson::kArrayType);
  for (const auto& s : r.steps) {
    Value o(rapidjson::kObjectType);
    o.AddMember("time", s.time, a);
    o.AddMember("currentReplicas", s.current_replicas, a);
    o.AddMember("availableReplicas", s.available_replicas, a);
    o.AddMember("desiredReplicas", s.desired_replicas, a);
    o.AddMember("rawDesiredReplicas", s.raw_desired_replicas, a);
    o.AddMember("kind", Value(std::string(model::to_string(s.kind)), a), a);
    o.AddMember("applied", s.applied, a);
    o.AddMember("reason", Value(s.reason, a), a);
    o.AddMember("message", Value(s.message, a), a);
    Value load(rapidjson::kObjectType);
    for (const auto& [type, v] : s.load) load.AddMember(Value(type, a), opt(v), a);
    o.AddMember("load", load, a);
    o.AddMember("lagSeconds", opt(s.lag_seconds), a);
    o.AddMember("writeRate", opt(s.write_rate), a);
    if (s.forecast) {
      Value f(rapidjson::kObjectType);
      f.AddMember("readReplicas", *s.forecast, a);
      f.AddMember("horizonSeconds", s.forecast_horizon, a);
      f.AddMember("estimateReadReplicas", opt(s.forecast_estimate), a);
      o.AddMember("forecast", f, a);
    } else {
      o.AddMember("forecast", Value(rapidjson::kNullType), a);
    }
    steps.PushBack(o, a);
  }
  out.AddMember("steps", steps, a);
  const auto& sum = r.summary;
  Value summary(rapidjson::kObjectType);
  summary.AddMember("durationSeconds", sum.duration_seconds, a);
  summary.AddMember("replicaSeconds", sum.replica_seconds, a);
  summary.AddMember("secondsAboveTarget", sum.seconds_above_target, a);
  Value overload(rapidjson::kObjectType);
  overload.AddMember("unavoidable", sum.overload_unavoidable, a);
  overload.AddMember("provisioning", sum.overload_provisioning, a);
  overload.AddMember("reaction", sum.overload_reaction, a);
  overload.AddMember("held", sum.overload_held, a);
  overload.AddMember("other", sum.overload_other, a);
  summary.AddMember("secondsAboveTargetBy", overload, a);
  summary.AddMember("boundReplicaSeconds", sum.bound_replica_seconds, a);
  summary.AddMember("boundUnknownSeconds", sum.bound_unknown_seconds, a);
  summary.AddMember("replicaSecondsBoundKnown", sum.replica_seconds_bound_known, a);
  summary.AddMember("shortfallReplicaSeconds", sum.shortfall_replica_seconds, a);
  summary.AddMember("scaleActions", sum.scale_actions, a);
  summary.AddMember("rollbacks", sum.rollbacks, a);
  summary.AddMember("minReplicas", sum.min_replicas, a);
  summary.AddMember("maxReplicas", sum.max_replicas, a);
  Value freezes(rapidjson::kObjectType);
  for (const auto& [reason, n] : sum.freezes_by_reason) freezes.AddMember(Value(reason, a), Value(n), a);
  summary.AddMember("freezesByReason", freezes, a);
  out.AddMember("summary", summary, a);
  return out;
}

}  // namespace dha::decide
