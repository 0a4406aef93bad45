#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

// Applied in order min, max, quorum floor, quota ceiling, so the later one wins: precedence
// quota > quorum floor > max > min. Raising to min is not reported as limited (reference).
GateNote BoundsGate::apply(Proposal& p, const GateContext& ctx) const {
  const auto& spec = ctx.spec;
  std::int32_t n = p.replicas;
  GateNote note{reasons::kPass, "within bounds"};
  std::string notes;
  auto add = [&notes](const std::string& s) { notes += (notes.empty() ? "" : "; ") + s; };
  if (n < spec.min_replicas) {
    n = spec.min_replicas;
    note.reason = reasons::kMinReplicas;
    add("raised to minReplicas " + std::to_string(n));
  }
  if (n > spec.max_replicas) {
    n = spec.max_replicas;
    mark_limited(p, reasons::kAtLimit, "held at maxReplicas " + std::to_string(n));
    note.reason = reasons::kAtLimit;
    add(p.limited_message);
  }
  if (n < ctx.quorum_floor) {
    n = ctx.quorum_floor;
    mark_limited(p, reasons::kQuorumFloor, "held at quorum floor " + std::to_string(n));
    note.reason = reasons::kQuorumFloor;
    add(p.limited_message);
  }
  const auto& quota = ctx.observation.quota_max_replicas;
  if (quota && n > *quota) {
    n = *quota;
    mark_limited(p, reasons::kQuotaExceeded, "clamped to tenant quota ceiling " + std::to_string(n));
    note.reason = reasons::kQuotaExceeded;
    add(p.limited_message);
  }
  if (!notes.empty()) note.message = notes;
  p.replicas = n;
  p.natural = n;
  return note;
}

}  // namespace dha::gates
