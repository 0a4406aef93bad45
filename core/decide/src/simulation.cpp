#include "dha/decide/simulation.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

SimulationResult simulate(const model::DhaSpec& spec, const LoadTrace& load, const SimulationParams& params) {
  for (const auto& m : spec.metrics)
    if (!load.has_column(model::to_string(m.type)))
      throw model::InputError("load", "no column for metric " + std::string(model::to_string(m.type)) +
                                          " of the DHA spec");
  if (params.interval_seconds < 1) throw model::InputError("--interval", "must be at least 1 second");
  if (params.provision_seconds < 0) throw model::InputError("--provision-seconds", "must not be negative");
  if (params.initial_replicas < 1) throw model::InputError("--initial-replicas", "must be at least 1");
  if (load.end() - load.start() > kMaxSimulatedSeconds)
    throw model::InputError("load", "spans more than 90 days");

  SimulationResult result;
  SimulatedTarget target(params.initial_replicas);
  model::DecisionState state;
  auto& summary = result.summary;
  summary.min_replicas = summary.max_replicas = params.initial_replicas;
  summary.duration_seconds = load.end() - load.start();

  for (std::int64_t t = load.start(); t <= load.end(); t += params.interval_seconds) {
    target.settle(t);
    model::Observation obs;
    obs.current_replicas = target.replicas();
    obs.available_replicas = target.available(t);
    obs.primary_count = params.primary_count;
    obs.quorum_floor = params.quorum_floor;
    obs.quota_max_replicas = params.quota_max_replicas;
    SimulationStep step;
    for (const auto& m : spec.metrics) {
      const std::string type(model::to_string(m.type));
      const auto total = load.at(type, static_cast<double>(t));
      obs.metrics.push_back({type, total});
      step.load.emplace_back(type, total);
    }
    obs.lag_seconds = load.at("lagSeconds", static_cast<double>(t));
    obs.write_rate = load.at("writeRate", static_cast<double>(t));

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
    state = d.next_state;
    result.steps.push_back(std::move(step));

    // Integrate cost and overload until the next cycle (or the end of the trace).
    const std::int64_t next = std::min(t + params.interval_seconds, load.end());
    for (std::int64_t s = t; s < next; ++s) {
      summary.replica_seconds += target.replicas();
      if (above_target(spec, load, s, target.available(s), params.primary_count)) ++summary.seconds_above_target;
    }
    summary.min_replicas = std::min(summary.min_replicas, target.replicas());
    summary.max_replicas = std::max(summary.max_replicas, target.replicas());
  }
  return result;
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
    steps.PushBack(o, a);
  }
  out.AddMember("steps", steps, a);
  const auto& sum = r.summary;
  Value summary(rapidjson::kObjectType);
  summary.AddMember("durationSeconds", sum.duration_seconds, a);
  summary.AddMember("replicaSeconds", sum.replica_seconds, a);
  summary.AddMember("secondsAboveTarget", sum.seconds_above_target, a);
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
