#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

GateNote DryRunGate::apply(Proposal& p, const GateContext& ctx) const {
  if (!ctx.spec.dry_run) return {reasons::kPass, "not a dry run"};
  p.carry_out = false;
  if (p.replicas == ctx.current() && p.kind == ProposalKind::Open)
    return {reasons::kDryRun, "dry run: nothing to apply"};
  return {reasons::kDryRun,
          std::string("dry run: would ") + (p.kind == ProposalKind::Rollback ? "roll back " : "scale ") +
              std::to_string(ctx.current()) + " -> " + std::to_string(p.replicas) + "; nothing is applied"};
}

}  // namespace dha::gates
