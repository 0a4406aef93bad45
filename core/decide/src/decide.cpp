#include "dha/decide/decide.hpp"

#include <cmath>

#include "dha/decide/adaptive_policy.hpp"
#include "dha/decide/backoff.hpp"
#include "dha/decide/saturating.hpp"
#include "dha/gates/reasons.hpp"
#include "dha/model/recommendation_history.hpp"

namespace dha::decide {
namespace {

namespace reasons = gates::reasons;
using model::DecisionKind;

// Reconcile bookkeeping before any gate: a converged, operational target
// ends our in-flight scale and becomes the last converged size; the first cycle adopts current.
model::DecisionState observe(const model::DecisionState& state, const model::Observation& obs) {
  model::DecisionState next = state;
  if (obs.health_known && obs.operational && obs.converged()) {
    next.in_flight_since.reset();
    next.last_converged_replicas = obs.current_replicas;
  }
  if (!next.last_converged_replicas) next.last_converged_replicas = obs.current_replicas;
  return next;
}

void carry_out(model::DecisionState& next, const Decision& d, const model::DhaSpec& spec, std::int64_t now) {
  next.in_flight_since = now;
  next.last_applied_replicas = d.desired_replicas;
  next.last_scale_time = now;
  if (d.kind != DecisionKind::Rollback) return;
  // The stuck size is what we leave; repeated failures at the same size double the hold.
  const std::int32_t failed = d.current_replicas;
  std::int32_t count = 1;
  if (next.backoff && next.backoff->replicas == failed) count = saturating_add(next.backoff->count, 1);
  const std::int64_t hold = backoff_seconds(spec.behavior.convergence_deadline_seconds, count);
  next.backoff = model::Backoff{failed, saturating_add64(now, hold), count};
}

ConditionView able_condition(const gates::Proposal& p, bool able) {
  if (able) return {"AbleToScale", "True", reasons::kReady, "ready to scale"};
  return {"AbleToScale", "False", p.able_reason, p.able_message};
}

ConditionView limited_condition(const gates::Proposal& p, bool conflict) {
  // A competing writer takes precedence over every other limit.
  if (conflict)
    return {"ScalingLimited", "True", reasons::kOwnershipConflict, "replicas changed by a competing writer"};
  if (p.limited) return {"ScalingLimited", "True", p.limited_reason, p.limited_message};
  return {"ScalingLimited", "False", reasons::kReady, "within limits"};
}

}  // namespace

Decision decide(const model::DhaSpec& spec, const model::Observation& obs, const model::DecisionState& state,
                std::int64_t now, const DecideOptions& options) {
  static const gates::GateChain kBuiltin = gates::GateChain::builtin();
  const gates::GateChain& chain = options.chain != nullptr ? *options.chain : kBuiltin;

  Decision d;
  d.current_replicas = obs.current_replicas;
  model::DecisionState observed = observe(state, obs);
  const MetricsResult metrics = evaluate_metrics(spec, obs);

  gates::GateContext ctx{spec, obs, observed};
  ctx.now = now;
  ctx.metrics_available = metrics.available;
  ctx.invalid_target_metric = metrics.invalid_target_metric;
  ctx.raw_desired = metrics.available ? metrics.raw_desired : 0;
  ctx.quorum_floor = spec.constraints.respect_quorum ? obs.quorum_floor : 1;
  ctx.ownership_conflict = observed.last_applied_replicas && obs.current_replicas != *observed.last_applied_replicas;
  ctx.metrics_summary = metrics.summary;
  ctx.dha_namespace = options.dha_namespace;
  ctx.dha_name = options.dha_name;

  gates::Proposal p;
  p.replicas = metrics.available ? metrics.raw_desired : obs.current_replicas;
  const bool adaptive = spec.behavior.policy == model::ScalingPolicy::Adaptive;
  std::optional<double> demand;
  std::int32_t recorded = metrics.raw_desired;
  if (adaptive && metrics.available) {
    demand = demand_read_replicas(metrics, obs.current_replicas, obs.primary_count);
    const AdaptiveProposal a = adaptive_proposal(spec, obs, observed, *demand, now);
    d.trace.push_back({"Adaptive", p.replicas, a.replicas, a.reason, a.message});
    p.replicas = a.replicas;
    recorded = a.recorded;
  }
  auto chain_trace = chain.run(p, ctx);
  d.trace.insert(d.trace.end(), std::make_move_iterator(chain_trace.begin()),
                 std::make_move_iterator(chain_trace.end()));

  switch (p.kind) {
    case gates::ProposalKind::Freeze:
      d.kind = DecisionKind::Freeze;
      break;
    case gates::ProposalKind::Rollback:
      d.kind = DecisionKind::Rollback;
      break;
    case gates::ProposalKind::Open:
      d.kind = p.replicas == obs.current_replicas ? DecisionKind::NoChange : DecisionKind::Scale;
      break;
  }
  d.desired_replicas = d.kind == DecisionKind::Freeze ? obs.current_replicas : p.replicas;
  d.raw_desired_replicas = ctx.raw_desired;
  d.able_to_scale = d.kind == DecisionKind::Scale || d.kind == DecisionKind::NoChange;
  d.ownership_conflict = ctx.ownership_conflict;
  d.able_to_scale_condition = able_condition(p, d.able_to_scale);
  d.scaling_limited_condition = limited_condition(p, ctx.ownership_conflict);
  d.limited = d.scaling_limited_condition.status == "True";
  d.metrics = metrics.metrics;

  if (!d.able_to_scale) {
    d.reason = d.able_to_scale_condition.reason;
    d.message = d.able_to_scale_condition.message;
  } else if (d.limited) {
    d.reason = d.scaling_limited_condition.reason;
    d.message = d.scaling_limited_condition.message;
  } else {
    d.reason = reasons::kReady;
    d.message = (d.kind == DecisionKind::Scale
                     ? "scale " + std::to_string(obs.current_replicas) + " -> " + std::to_string(d.desired_replicas)
                     : "no change at " + std::to_string(obs.current_replicas)) +
                " (" + metrics.summary + ")";
  }

  // Next state: history only from cycles with metrics (an outage must not poison the window).
  d.next_state = std::move(observed);
  auto& history = d.next_state.recommendations;
  if (metrics.available)
    model::record_recommendation(history, now, recorded, spec.longest_window_seconds());
  else
    model::prune_recommendations(history, now, spec.longest_window_seconds());
  // Only a metric-backed natural target below the failed size clears the backoff.
  if (p.natural && d.next_state.backoff && *p.natural < d.next_state.backoff->replicas) d.next_state.backoff.reset();
  if (adaptive) remember_adaptive(d.next_state, state, obs, demand, now);
  d.apply = p.carry_out && (d.kind == DecisionKind::Scale || d.kind == DecisionKind::Rollback);
  if (d.apply) carry_out(d.next_state, d, spec, now);
  return d;
}

namespace {

rapidjson::Value condition_json(const ConditionView& c, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value o(rapidjson::kObjectType);
  o.AddMember("type", rapidjson::Value(c.type, a), a);
  o.AddMember("status", rapidjson::Value(c.status, a), a);
  o.AddMember("reason", rapidjson::Value(c.reason, a), a);
  o.AddMember("message", rapidjson::Value(c.message, a), a);
  return o;
}

}  // namespace

rapidjson::Value decision_to_json(const Decision& d, rapidjson::Document::AllocatorType& a) {
  using rapidjson::Value;
  Value out(rapidjson::kObjectType);
  out.AddMember("kind", Value(std::string(model::to_string(d.kind)), a), a);
  out.AddMember("desiredReplicas", d.desired_replicas, a);
  out.AddMember("rawDesiredReplicas", d.raw_desired_replicas, a);
  out.AddMember("ableToScale", d.able_to_scale, a);
  out.AddMember("limited", d.limited, a);
  out.AddMember("reason", Value(d.reason, a), a);
  out.AddMember("message", Value(d.message, a), a);
  Value conditions(rapidjson::kArrayType);
  conditions.PushBack(condition_json(d.able_to_scale_condition, a), a);
  conditions.PushBack(condition_json(d.scaling_limited_condition, a), a);
  out.AddMember("conditions", conditions, a);
  out.AddMember("trace", model::trace_to_json(d.trace, a), a);
  out.AddMember("state", model::decision_state_to_json(d.next_state, a), a);
  return out;
}

}  // namespace dha::decide
