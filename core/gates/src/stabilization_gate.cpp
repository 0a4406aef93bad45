#include <algorithm>

#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

// HPA semantics (docs/behaviour.md#guardrail-stabilization): a rise must hold for the whole
// up-window (the minimum of the window's recommendations) and a fall for the whole down-window
// (their maximum). An entry whose age equals the window is still inside it.
GateNote StabilizationGate::apply(Proposal& p, const GateContext& ctx) const {
  const std::int32_t current = ctx.current();
  const std::int32_t raw = p.replicas;
  if (raw == current) return {reasons::kPass, "no change proposed"};
  const bool up = raw > current;
  const auto& rules = up ? ctx.spec.behavior.scale_up : ctx.spec.behavior.scale_down;
  const std::int64_t window = rules.stabilization_window_seconds;
  std::int32_t result = raw;
  for (const auto& r : ctx.state.recommendations) {
    if (seconds_since(ctx.now, r.time) > window) continue;
    result = up ? std::min(result, r.replicas) : std::max(result, r.replicas);
  }
  result = up ? std::max(result, current) : std::min(result, current);
  p.replicas = result;
  if (result == raw) return {reasons::kPass, "recommendation held for the " + std::to_string(window) + "s window"};
  return {reasons::kStabilized, std::string(up ? "scale-up limited to " : "scale-down held at ") +
                                    std::to_string(result) + " by the " + (up ? "lowest" : "highest") +
                                    " recommendation in the last " + std::to_string(window) + "s"};
}

}  // namespace dha::gates
