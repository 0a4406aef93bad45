#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"
#include "dha/model/rfc3339.hpp"

namespace dha::gates {

GateNote BackoffGate::apply(Proposal& p, const GateContext& ctx) const {
  const auto& backoff = ctx.state.backoff;
  if (!backoff) return {reasons::kPass, "no backoff"};
  const bool scale = p.replicas != ctx.current();
  if (scale && p.replicas == backoff->replicas && ctx.now < backoff->until) {
    std::string msg = "backing off re-attempt of " + std::to_string(backoff->replicas) + " replicas until " +
                      model::format_rfc3339(backoff->until);
    freeze(p, ctx, reasons::kStuckScaling, msg);
    return {reasons::kStuckScaling, msg};
  }
  return {reasons::kPass, "backoff for " + std::to_string(backoff->replicas) + " replicas does not apply"};
}

}  // namespace dha::gates
