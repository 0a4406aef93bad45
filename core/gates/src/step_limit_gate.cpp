#include <algorithm>

#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

namespace {
std::int32_t sat_add(std::int32_t a, std::int32_t b) {
  const std::int64_t s = static_cast<std::int64_t>(a) + b;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(s, INT32_MIN, INT32_MAX));
}
}  // namespace

GateNote StepLimitGate::apply(Proposal& p, const GateContext& ctx) const {
  const std::int32_t current = ctx.current();
  const std::int32_t natural = p.replicas;
  if (natural == current) return {reasons::kPass, "no change"};
  const auto& behavior = ctx.spec.behavior;
  if (natural > current) {
    std::int32_t desired = std::min(natural, sat_add(current, behavior.scale_up.step));
    // A climb never stops below the quorum floor: reaching a safe quorum is not rate-limited.
    if (desired < ctx.quorum_floor) {
      p.replicas = std::min(natural, ctx.quorum_floor);
      return {reasons::kQuorumExemption,
              "climb to quorum floor " + std::to_string(ctx.quorum_floor) + " is not rate-limited"};
    }
    p.replicas = desired;
    if (desired == natural) return {reasons::kPass, "within scale-up step " + std::to_string(behavior.scale_up.step)};
    return {reasons::kStepLimited, "scale-up step " + std::to_string(behavior.scale_up.step) + " per cycle"};
  }
  // Scale-down toward the floor always respects the step.
  const std::int32_t desired = std::max(natural, sat_add(current, -behavior.scale_down.step));
  p.replicas = desired;
  if (desired == natural) return {reasons::kPass, "within scale-down step " + std::to_string(behavior.scale_down.step)};
  return {reasons::kStepLimited, "scale-down step " + std::to_string(behavior.scale_down.step) + " per cycle"};
}

}  // namespace dha::gates
