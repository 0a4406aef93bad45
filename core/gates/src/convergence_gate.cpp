#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

GateNote ConvergenceGate::apply(Proposal& p, const GateContext& ctx) const {
  const auto& obs = ctx.observation;
  const std::int32_t current = ctx.current();
  // Without the health object, availability is unknown: judging convergence (or rolling back)
  // blind would be guessing. The Health gate freezes with HealthUnknown.
  if (!obs.health_known) return {reasons::kPass, "health object unknown; convergence not judged"};
  if (obs.converged()) return {reasons::kConverged, "converged at " + std::to_string(current)};

  const std::string progress = std::to_string(obs.available_replicas) + " of " + std::to_string(current) + " available";
  // Only a patch of ours anchors a deadline; a crash or a drain waits (docs/behaviour.md#guardrail-not-converged).
  if (!ctx.state.in_flight_since) {
    std::string msg = "target not converged (" + progress + ") and no scale of ours in flight; freezing";
    freeze(p, ctx, reasons::kNotConverged, msg);
    return {reasons::kNotConverged, msg};
  }

  const std::int64_t age = seconds_since(ctx.now, *ctx.state.in_flight_since);
  const std::int32_t deadline = ctx.spec.behavior.convergence_deadline_seconds;
  if (deadline <= 0 || age <= deadline) {
    std::string msg = "scale in flight; waiting for convergence";
    freeze(p, ctx, reasons::kScaleInFlight, msg);
    return {reasons::kScaleInFlight,
            msg + " (" + progress + ", " + std::to_string(age) + "s of " + std::to_string(deadline) + "s)"};
  }

  const auto& last = ctx.state.last_converged_replicas;
  // A stuck scale-down is never "rolled back" upward (docs/behaviour.md#guardrail-rollback).
  if (last && current < *last) {
    std::string msg = "scale did not converge and no safe rollback target";
    freeze(p, ctx, reasons::kStuckScaling, msg);
    return {reasons::kStuckScaling, msg + " (a stuck scale-down is not rolled back upward)"};
  }
  const auto& quota = obs.quota_max_replicas;
  const bool safe = last && *last >= ctx.quorum_floor && (!quota || *last <= *quota);
  if (safe && *last != current) {
    std::string msg = "scale did not converge; rolling back to " + std::to_string(*last);
    p.kind = ProposalKind::Rollback;
    p.replicas = *last;
    p.able_reason = reasons::kStuckScaling;
    p.able_message = msg;
    return {reasons::kStuckScaling, msg};
  }
  std::string msg = "scale did not converge and no safe rollback target";
  freeze(p, ctx, reasons::kStuckScaling, msg);
  return {reasons::kStuckScaling, msg};
}

}  // namespace dha::gates
