#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

// The conflict itself is reported through ScalingLimited whatever the decision (it takes
// precedence over every other limited reason); this gate stops the write.
GateNote OwnershipGate::apply(Proposal& p, const GateContext& ctx) const {
  if (!ctx.ownership_conflict) return {reasons::kPass, "no competing writer"};
  const std::string msg = "replicas changed by a competing writer";
  const std::string detail = msg + " (" + std::to_string(ctx.current()) + ", we last wrote " +
                             std::to_string(*ctx.state.last_applied_replicas) + "); not entering a write war";
  if (p.kind == ProposalKind::Rollback) {
    freeze(p, ctx, reasons::kStuckScaling, "scale did not converge; rollback withheld: " + msg);
    return {reasons::kOwnershipConflict, detail};
  }
  p.replicas = ctx.current();
  mark_limited(p, reasons::kOwnershipConflict, msg);
  return {reasons::kOwnershipConflict, detail};
}

}  // namespace dha::gates
