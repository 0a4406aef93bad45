#include "fault_schedule.hpp"

#include <array>

namespace dha::soak {

const char* name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kKillLeader: return "kill-leader";
    case FaultKind::kRestartApiServer: return "restart-apiserver";
    case FaultKind::kRestartVm: return "restart-vm";
    case FaultKind::kSlowVm: return "slow-vm";
    case FaultKind::kApiConflicts: return "api-409";
    case FaultKind::kApiErrors: return "api-5xx";
    case FaultKind::kSlowApi: return "slow-api";
    case FaultKind::kHealthFlip: return "health-flip";
    case FaultKind::kOwnershipConflict: return "ownership-conflict";
    case FaultKind::kMetricGap: return "metric-gap";
    case FaultKind::kLeaseLossInPatch: return "lease-loss-in-patch";
    case FaultKind::kCount: break;
  }
  return "?";
}

FaultPlan FaultSchedule::next(std::size_t targets, int variants) {
  // Weights: the cheap request-level faults often, the process kills now and then (each costs a
  // Lease expiry or a restart; a lease loss in a patch costs a whole takeover, ~20 s).
  static constexpr std::array<int, static_cast<int>(FaultKind::kCount)> kWeights = {2, 1, 1, 1, 3, 3, 2, 3, 1, 1, 1};
  int total = 0;
  for (int w : kWeights) total += w;
  int pick = static_cast<int>(below(static_cast<std::uint64_t>(total)));
  int k = 0;
  while (pick >= kWeights[static_cast<std::size_t>(k)]) pick -= kWeights[static_cast<std::size_t>(k++)];
  FaultPlan p;
  p.kind = static_cast<FaultKind>(k);
  p.target = static_cast<std::size_t>(below(targets));
  p.variant = static_cast<int>(below(static_cast<std::uint64_t>(variants)));
  p.count = 1 + static_cast<int>(below(3));
  p.status = below(2) == 0 ? 500 : 503;
  switch (p.kind) {
    case FaultKind::kKillLeader: p.length = between(500, 4000); break;
    case FaultKind::kRestartApiServer: p.length = between(500, 3000); break;
    case FaultKind::kRestartVm: p.length = between(500, 4000); break;
    case FaultKind::kSlowVm: p.length = between(2500, 5000); break;
    case FaultKind::kSlowApi: p.length = between(2500, 4000); break;
    case FaultKind::kHealthFlip: p.length = between(2000, 6000); break;
    case FaultKind::kOwnershipConflict: p.length = between(3000, 6000); break;
    case FaultKind::kMetricGap: p.length = between(16000, 24000); break;
    case FaultKind::kLeaseLossInPatch: p.length = std::chrono::milliseconds(40000); break;
    default: p.length = std::chrono::milliseconds(0); break;
  }
  p.pause_after = between(1000, 4000);
  return p;
}

}  // namespace dha::soak
