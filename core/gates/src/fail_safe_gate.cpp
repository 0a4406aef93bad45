#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

GateNote FailSafeGate::apply(Proposal& p, const GateContext& ctx) const {
  // A bad target is the user's to fix and says more than the outage it would also cause.
  if (!ctx.invalid_target_metric.empty()) {
    std::string msg = "metric " + ctx.invalid_target_metric + " has a non-positive target";
    freeze(p, ctx, reasons::kInvalidMetricTarget, msg);
    return {reasons::kInvalidMetricTarget, msg};
  }
  if (!ctx.metrics_available) {
    std::string msg = "metric unavailable; refusing to scale blind";
    freeze(p, ctx, reasons::kMetricUnavailable, msg);
    return {reasons::kMetricUnavailable, msg};
  }
  return {reasons::kPass, "raw recommendation " + std::to_string(ctx.raw_desired) + " from " + ctx.metrics_summary};
}

}  // namespace dha::gates
