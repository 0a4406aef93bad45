#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

GateNote HealthGate::apply(Proposal& p, const GateContext& ctx) const {
  if (!ctx.observation.health_known) {
    std::string msg = "health object missing or unreadable; freezing";
    freeze(p, ctx, reasons::kHealthUnknown, msg);
    return {reasons::kHealthUnknown, msg};
  }
  if (!ctx.observation.operational) {
    std::string msg = "target not operational; freezing";
    freeze(p, ctx, reasons::kNotOperational, msg);
    return {reasons::kNotOperational, msg};
  }
  return {reasons::kPass, "target operational"};
}

}  // namespace dha::gates
