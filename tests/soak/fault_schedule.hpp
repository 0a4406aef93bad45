#pragma once
// The soak's seeded fault schedule. Coverage is built in, not drawn: a run first goes through
// one fault of every kind (a lease loss in a patch first, the rest in an order the seed picks),
// and only then draws weighted random faults until its time is up. The seed decides the order,
// the parameters and the extra faults, never whether a kind (and the check it feeds) happens.
// The same seed gives the same sequence, so a failing run can be replayed (DHA_SOAK_SEED /
// --seed). Pure; the driver acts and reports back whether each fault took effect.

#include <chrono>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace dha::soak {

enum class FaultKind {
  kKillLeader,         // SIGKILL the Lease holder, restart it after `length`
  kRestartApiServer,   // stop the API server for `length`, start it on the same store
  kRestartVm,          // SIGKILL VictoriaMetrics, restart it on the same data dir after `length`
  kSlowVm,             // SIGSTOP VictoriaMetrics for `length` (past the plugin's query timeout)
  kApiConflicts,       // `count` 409s on one kind of operator request (`variant`)
  kApiErrors,          // `count` 500/503s on one kind of operator request (`variant`)
  kSlowApi,            // `count` requests of one kind held for `length` (past the Lease timeout)
  kHealthFlip,         // target's health object: not operational, or one replica unavailable
  kOwnershipConflict,  // a tenant changes the target's replicas, restores them after `length`
  kMetricGap,          // the target's series are not pushed for `length` (longer than staleness)
  kLeaseLossInPatch,   // the leader's next target PATCH and all after it held on its way until
                       // the other operator took the Lease over (at most `length`)
  kCount
};

const char* name(FaultKind kind);

struct FaultPlan {
  FaultKind kind = FaultKind::kKillLeader;
  std::size_t target = 0;  // index into the soak's targets
  int variant = 0;         // which request kind / which health flip
  int count = 1;
  int status = 500;  // for kApiErrors
  std::chrono::milliseconds length{0};
  std::chrono::milliseconds pause_after{0};  // quiet time before the next fault
  bool required = false;                     // part of the run's one-of-every-kind coverage
};

// What the schedule needs to know of the soak's world.
struct ScheduleWorld {
  std::size_t targets = 1;
  int variants = 1;  // request kinds the API faults pick from
  // The targets a tenant's replicas change means something on: an ownership conflict on a
  // dry-run target tests nothing (the operator never writes there), so it is never drawn.
  std::vector<std::size_t> tenant_writable;
};

class FaultSchedule {
 public:
  FaultSchedule(std::uint64_t seed, ScheduleWorld world);

  // The next fault: the coverage faults first, then weighted random ones.
  FaultPlan next();
  // The driver's word on a plan it ran. A required fault that did not take effect (no leader to
  // hold, the API server unreachable for the tenant's write) is run again next, so the run's
  // coverage never depends on the timing of its first attempt; the caller bounds the retries
  // by the run's time.
  void record(const FaultPlan& plan, bool took_effect);
  // True once every kind has taken effect at least once.
  bool covered() const { return uncovered_.empty(); }
  // The kinds that have not taken effect yet, for the failure message.
  std::vector<FaultKind> uncovered() const { return {uncovered_.begin(), uncovered_.end()}; }
  // The coverage order this seed picked, for the log.
  std::string coverage_order() const;

 private:
  FaultPlan draw(FaultKind kind);
  FaultKind weighted_kind();
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  std::chrono::milliseconds between(int lo_ms, int hi_ms) {
    return std::chrono::milliseconds(lo_ms + static_cast<int>(below(static_cast<std::uint64_t>(hi_ms - lo_ms + 1))));
  }

  std::mt19937_64 rng_;  // specified bit for bit by the standard: replays match across builds
  ScheduleWorld world_;
  std::deque<FaultPlan> coverage_;  // the required faults not handed out yet
  std::vector<FaultKind> order_;
  std::set<FaultKind> uncovered_;
};

}  // namespace dha::soak
