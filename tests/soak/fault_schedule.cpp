#include "fault_schedule.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace dha::soak {

const char* name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kKillLeader:
      return "kill-leader";
    case FaultKind::kRestartApiServer:
      return "restart-apiserver";
    case FaultKind::kRestartVm:
      return "restart-vm";
    case FaultKind::kSlowVm:
      return "slow-vm";
    case FaultKind::kApiConflicts:
      return "api-409";
    case FaultKind::kApiErrors:
      return "api-5xx";
    case FaultKind::kSlowApi:
      return "slow-api";
    case FaultKind::kHealthFlip:
      return "health-flip";
    case FaultKind::kOwnershipConflict:
      return "ownership-conflict";
    case FaultKind::kMetricGap:
      return "metric-gap";
    case FaultKind::kLeaseLossInPatch:
      return "lease-loss-in-patch";
    case FaultKind::kCount:
      break;
  }
  return "?";
}

FaultSchedule::FaultSchedule(std::uint64_t seed, ScheduleWorld world) : rng_(seed), world_(std::move(world)) {
  if (world_.targets == 0 || world_.variants <= 0 || world_.tenant_writable.empty())
    throw std::invalid_argument("a fault schedule needs a target, a request kind and a tenant-writable target");
  for (std::size_t t : world_.tenant_writable)
    if (t >= world_.targets) throw std::invalid_argument("a tenant-writable target index is out of range");
  // The lease loss in a patch comes first: early in a run the load is rising, so the leader has
  // a PATCH to send, and it is the longest fault (a whole takeover).
  order_.push_back(FaultKind::kLeaseLossInPatch);
  std::vector<FaultKind> rest;
  for (int k = 0; k < static_cast<int>(FaultKind::kCount); ++k)
    if (static_cast<FaultKind>(k) != FaultKind::kLeaseLossInPatch) rest.push_back(static_cast<FaultKind>(k));
  // Fisher-Yates with our own draws (std::shuffle's algorithm is not fixed by the standard).
  for (std::size_t i = rest.size(); i > 1; --i) std::swap(rest[i - 1], rest[below(i)]);
  order_.insert(order_.end(), rest.begin(), rest.end());
  for (FaultKind k : order_) {
    coverage_.push_back(draw(k));
    coverage_.back().required = true;
    uncovered_.insert(k);
  }
}

FaultKind FaultSchedule::weighted_kind() {
  // Weights: the cheap request-level faults often, the process kills now and then (each costs a
  // Lease expiry or a restart; a lease loss in a patch costs a whole takeover, ~20 s).
  static constexpr std::array<int, static_cast<int>(FaultKind::kCount)> kWeights = {2, 1, 1, 1, 3, 3, 2, 3, 1, 1, 1};
  int total = 0;
  for (int w : kWeights) total += w;
  int pick = static_cast<int>(below(static_cast<std::uint64_t>(total)));
  int k = 0;
  while (pick >= kWeights[static_cast<std::size_t>(k)]) pick -= kWeights[static_cast<std::size_t>(k++)];
  return static_cast<FaultKind>(k);
}

FaultPlan FaultSchedule::draw(FaultKind kind) {
  FaultPlan p;
  p.kind = kind;
  p.target = static_cast<std::size_t>(below(world_.targets));
  if (kind == FaultKind::kOwnershipConflict)
    p.target = world_.tenant_writable[static_cast<std::size_t>(below(world_.tenant_writable.size()))];
  p.variant = static_cast<int>(below(static_cast<std::uint64_t>(world_.variants)));
  p.count = 1 + static_cast<int>(below(3));
  p.status = below(2) == 0 ? 500 : 503;
  switch (p.kind) {
    case FaultKind::kKillLeader:
      p.length = between(500, 4000);
      break;
    case FaultKind::kRestartApiServer:
      p.length = between(500, 3000);
      break;
    case FaultKind::kRestartVm:
      p.length = between(500, 4000);
      break;
    case FaultKind::kSlowVm:
      p.length = between(2500, 5000);
      break;
    case FaultKind::kSlowApi:
      p.length = between(2500, 4000);
      break;
    case FaultKind::kHealthFlip:
      p.length = between(2000, 6000);
      break;
    case FaultKind::kOwnershipConflict:
      p.length = between(3000, 6000);
      break;
    case FaultKind::kMetricGap:
      p.length = between(16000, 24000);
      break;
    case FaultKind::kLeaseLossInPatch:
      p.length = std::chrono::milliseconds(40000);
      break;
    default:
      p.length = std::chrono::milliseconds(0);
      break;
  }
  p.pause_after = between(1000, 4000);
  return p;
}

FaultPlan FaultSchedule::next() {
  if (!coverage_.empty()) {
    FaultPlan p = coverage_.front();
    coverage_.pop_front();
    return p;
  }
  return draw(weighted_kind());
}

void FaultSchedule::record(const FaultPlan& plan, bool took_effect) {
  if (took_effect) {
    uncovered_.erase(plan.kind);
    return;
  }
  // Only a kind still owed is retried; a random extra that missed is just a missed extra.
  if (uncovered_.count(plan.kind) > 0 &&
      std::none_of(coverage_.begin(), coverage_.end(), [&](const FaultPlan& p) { return p.kind == plan.kind; })) {
    FaultPlan again = plan;
    again.required = true;
    coverage_.push_front(again);
  }
}

std::string FaultSchedule::coverage_order() const {
  std::string out;
  for (FaultKind k : order_) out += (out.empty() ? "" : ", ") + std::string(name(k));
  return out;
}

}  // namespace dha::soak
