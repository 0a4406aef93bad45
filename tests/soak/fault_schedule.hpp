#pragma once
// The soak's seeded fault schedule: the same seed gives the same sequence of faults, pauses and
// parameters, so a failing run can be replayed (DHA_SOAK_SEED / --seed). Pure; the driver acts.

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

namespace dha::soak {

enum class FaultKind {
  kKillLeader,        // SIGKILL the Lease holder, restart it after `length`
  kRestartApiServer,  // stop the API server for `length`, start it on the same store
  kRestartVm,         // SIGKILL VictoriaMetrics, restart it on the same data dir after `length`
  kSlowVm,            // SIGSTOP VictoriaMetrics for `length` (past the plugin's query timeout)
  kApiConflicts,      // `count` 409s on one kind of operator request (`variant`)
  kApiErrors,         // `count` 500/503s on one kind of operator request (`variant`)
  kSlowApi,           // `count` requests of one kind held for `length` (past the Lease timeout)
  kHealthFlip,        // target's health object: not operational, or one replica unavailable
  kOwnershipConflict, // a tenant changes the target's replicas, restores them after `length`
  kMetricGap,         // the target's series are not pushed for `length` (longer than staleness)
  kLeaseLossInPatch,  // the leader's next target PATCH and all after it held on its way until
                      // the other operator took the Lease over (at most `length`)
  kCount
};

const char* name(FaultKind kind);

struct FaultPlan {
  FaultKind kind = FaultKind::kKillLeader;
  std::size_t target = 0;             // index into the soak's targets
  int variant = 0;                    // which request kind / which health flip
  int count = 1;
  int status = 500;                   // for kApiErrors
  std::chrono::milliseconds length{0};
  std::chrono::milliseconds pause_after{0};  // quiet time before the next fault
};

class FaultSchedule {
 public:
  explicit FaultSchedule(std::uint64_t seed) : rng_(seed) {}
  // The next fault for a world of `targets` targets with `variants` request kinds.
  FaultPlan next(std::size_t targets, int variants);

 private:
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  std::chrono::milliseconds between(int lo_ms, int hi_ms) {
    return std::chrono::milliseconds(lo_ms + static_cast<int>(below(static_cast<std::uint64_t>(hi_ms - lo_ms + 1))));
  }
  std::mt19937_64 rng_;  // specified bit for bit by the standard: replays match across builds
};

}  // namespace dha::soak
