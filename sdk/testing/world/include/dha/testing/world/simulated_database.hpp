#pragma once

// One simulated database application as its engine operator would run it: instances with stable
// pod names, a primary, and read replicas that become available only after a provisioning delay.
// Pure state, no I/O and no clock reads: every call takes the current time, so tests drive it
// with made-up times.

#include <chrono>
#include <string>
#include <vector>

namespace dha::testing::world {

using Clock = std::chrono::steady_clock;

class SimulatedDatabase {
 public:
  struct Instance {
    std::string pod;
    bool primary = false;
    bool available = false;
  };

  // `pod_prefix` is the engine's name for the cluster (CNPG: "postgres-<app>"); pods are
  // "<pod_prefix>-<serial>" with serials that are never reused, as CNPG does. The instances that
  // exist when the simulator first sees the application are available at once: the database was
  // already running before the demo started.
  SimulatedDatabase(std::string pod_prefix, int replicas, Clock::time_point now);

  // The application's spec.replicas changed (or not): new instances start provisioning and become
  // available `provision` later; surplus instances (the newest first) disappear at once. Negative
  // counts are treated as 0.
  void set_replicas(int replicas, Clock::time_point now, Clock::duration provision);

  int replicas() const { return static_cast<int>(instances_.size()); }
  int available(Clock::time_point now) const;
  // Every existing instance (the primary first), with availability at `now`.
  std::vector<Instance> instances(Clock::time_point now) const;
  // Pods removed since the last call that had been available (and so had exporter series): the
  // exporter sends their series one last time as zero so that a metric store's lookback does not
  // keep counting them.
  std::vector<std::string> take_removed_pods();

 private:
  struct Member {
    int serial;
    Clock::time_point ready_at;
  };
  std::string pod_name(int serial) const { return pod_prefix_ + "-" + std::to_string(serial); }

  std::string pod_prefix_;
  int next_serial_ = 1;
  std::vector<Member> instances_;  // ordered by serial; the first is the primary
  std::vector<std::string> removed_;
};

}  // namespace dha::testing::world
