#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

GateNote QuorumVsQuotaGate::apply(Proposal& p, const GateContext& ctx) const {
  const auto& quota = ctx.observation.quota_max_replicas;
  if (!quota) return {reasons::kPass, "no tenant quota ceiling"};
  const std::string floor = std::to_string(ctx.quorum_floor);
  const std::string ceiling = std::to_string(*quota);
  if (ctx.quorum_floor > *quota) {
    std::string msg = "quorum floor " + floor + " exceeds tenant quota ceiling " + ceiling;
    freeze(p, ctx, reasons::kQuorumExceedsQuota, msg);
    mark_limited(p, reasons::kQuorumExceedsQuota, msg);
    return {reasons::kQuorumExceedsQuota, msg};
  }
  return {reasons::kPass, "quorum floor " + floor + " within tenant quota ceiling " + ceiling};
}

}  // namespace dha::gates
