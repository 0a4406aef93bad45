#pragma once
// Leader election on a coordination.k8s.io/v1 Lease (client-go's leaderelection, condensed).
//
//   LeaderElectionConfig le;
//   le.lease_namespace = pod_namespace; le.identity = pod_name;
//   le.on_started_leading = [&] { controller.start(); };
//   le.on_stopped_leading = [&] { controller.stop(); };   // at once, from the elector thread
//   LeaderElector elector(config, le);
//   elector.start();
//
// Rules: a candidate takes the lease when it is free (no holder) or when the holder has not
// renewed for leaseDurationSeconds *as measured on this candidate's monotonic clock since it
// last saw the lease change* (clock skew between pods does not matter). The leader renews every
// retry_period; when it has not renewed successfully for renew_deadline, or sees another holder,
// it stops leading. renew_deadline < lease_duration, so the old leader stops before anyone else
// can take over. On stop() a leader releases the lease (holder cleared) unless
// release_on_stop is false.
//
// Threading: start() runs one thread; callbacks run on it. The elector uses its own Client with
// no client-side rate limit and a request timeout of retry_period, so a hung request or a busy
// shared limiter cannot make the leader miss its deadline unnoticed.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "dha/kube/clock.hpp"
#include "dha/kube/config.hpp"

namespace dha::kube {

class Client;

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name = "db-autoscaler.autoscaling.cozystack.io";
  std::string identity;  // the pod name
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  bool release_on_stop = true;
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& holder)> on_new_leader;  // optional: holder changed (may be us)
};

// The spec of a Lease as this code reads and writes it.
struct LeaseRecord {
  std::string holder;
  int lease_duration_seconds = 0;
  std::string acquire_time;  // RFC 3339 with microseconds (MicroTime)
  std::string renew_time;
  int transitions = 0;
};

enum class LeaseAction { Acquire, Renew, Wait };

// The pure decision. `current` null = no Lease object yet. `observed_at` = when this candidate
// last saw the lease change; `fallback_duration` is used when the record has no duration.
LeaseAction decide_lease(const LeaseRecord* current, const std::string& identity, TimePoint observed_at, TimePoint now,
                         Duration fallback_duration);
// A leader whose last successful renewal is `renew_deadline` or more ago must stop leading.
bool renew_deadline_passed(TimePoint last_renew, TimePoint now, Duration renew_deadline);
// metav1.MicroTime text: "2026-11-30T01:02:03.000004Z".
std::string format_micro_time(std::chrono::system_clock::time_point t);

class LeaderElector {
 public:
  // Throws std::invalid_argument for an inconsistent timing (renew_deadline >= lease_duration,
  // retry_period >= renew_deadline), an empty identity or namespace.
  LeaderElector(const Config& config, LeaderElectionConfig le, const Clock& clock = SystemClock::instance());
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  void start();
  // Stops the loop; if leading: on_stopped_leading, then release (if configured and `may_release`:
  // a caller whose writes may still be in flight passes false and lets the lease run out).
  // Idempotent.
  void stop(bool may_release = true);

  bool is_leader() const { return leading_.load(); }
  // Stricter than is_leader(), for fencing writes: leading, and the last successful renewal
  // (counted from when its request was sent) is less than renew_deadline ago, checked now
  // rather than at the loop's next turn.
  bool holds_lease() const;
  // While leading: when the lease stops covering this replica's writes (the last successful
  // renewal's send time + renew_deadline, on the clock's now() scale). nullopt when not leading.
  // A write must be over by then: followers may take the lease lease_duration after that
  // renewal, so the margin between the two is lease_duration - renew_deadline.
  std::optional<TimePoint> lease_valid_until() const;
  Duration renew_deadline() const { return le_.renew_deadline; }
  std::string observed_holder() const;

  // One acquire-or-renew attempt; true when this candidate holds the lease afterwards.
  // Exposed for tests; the loop calls it.
  bool try_acquire_or_renew();

 private:
  void run();
  void release();
  void sleep_for(Duration d);

  LeaderElectionConfig le_;
  const Clock& clock_;
  std::unique_ptr<Client> client_;
  std::atomic<bool> leading_{false};
  std::atomic<Duration::rep> last_renew_{0};  // clock_ time since epoch of the last renewal sent
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Observation state (only the loop thread writes; observed_holder() reads under mu_).
  std::string observed_rv_;
  std::string observed_holder_;
  TimePoint observed_at_{};
};

}  // namespace dha::kube
