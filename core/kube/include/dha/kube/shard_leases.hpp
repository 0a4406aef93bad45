#pragma once
// Shards on Kubernetes Leases: the work is split into N shards, each guarded by the Lease
// "<lease_name>-shard-<i>"; a replica reconciles only the shards whose Lease it holds.
//
//   ShardLeaseConfig c; c.lease_namespace = ns; c.identity = pod; c.shards = 3;
//   c.on_gained = [&](int s) { enqueue the DHAs of shard s };
//   c.on_lost = [&](int s) { return whether shard s's reconciles ended within a bound };
//   ShardLeases leases(config, c);
//   leases.start();                      // ... leases.holds(s) fences every write of shard s
//
// Membership: replicas count each other through member slots, the Leases
// "<lease_name>-member-<j>" (j < N), which they take and renew like shards. A replica without a
// slot (more replicas than shards) stands by; it takes a slot when one expires.
//
// Each retry period one loop lists the Leases of the namespace, renews what it holds, then
// applies plan_shards() (shard_assignment.hpp). Expiry follows the leader elector's rule
// (decide_lease): a Lease is free once it has not changed for its leaseDurationSeconds as
// measured on this replica's monotonic clock. holds(s) turns false when shard s's last
// successful renewal is renew_deadline old (renew_deadline < lease_duration, so a replica stops
// writing before anyone can take over), when another holder shows up, or when the plan
// releases it; a voluntary release calls on_lost before clearing the holder, so the next
// holder never overlaps with it — and when on_lost says work of the shard still runs, the
// holder is not cleared: the Lease expires after its duration instead.
//
// Threading: one thread; on_gained / on_lost run on it. holds() and held() from any thread.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <rapidjson/document.h>

#include "dha/kube/clock.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/leader_election.hpp"

namespace dha::kube {

class Client;

struct ShardLeaseConfig {
  std::string lease_namespace;
  std::string lease_name = "db-autoscaler.autoscaling.cozystack.io";  // the prefix of every Lease
  std::string identity;
  int shards = 2;
  Duration lease_duration = std::chrono::seconds(15);
  Duration renew_deadline = std::chrono::seconds(10);
  Duration retry_period = std::chrono::seconds(2);
  std::function<void(int shard)> on_gained;
  // holds(shard) is already false. Returns true once no work of the shard runs; keep it short
  // (about one retry period): the loop renews the other shards only after it returns.
  std::function<bool(int shard)> on_lost;
};

std::string shard_lease_name(const std::string& prefix, int shard);
std::string member_lease_name(const std::string& prefix, int slot);

class ShardLeases {
 public:
  // Throws std::invalid_argument for inconsistent timings, an empty identity or namespace, or
  // fewer than 1 shard.
  ShardLeases(const Config& config, ShardLeaseConfig c, const Clock& clock = SystemClock::instance());
  ~ShardLeases();
  ShardLeases(const ShardLeases&) = delete;
  ShardLeases& operator=(const ShardLeases&) = delete;

  void start();
  // Stops the loop, calls on_lost for every held shard, then releases its Leases. Idempotent.
  void stop();

  int shards() const { return c_.shards; }
  bool holds(int shard) const;
  // While shard is held: when its Lease stops covering this replica's writes (its last
  // renewal's send time + renew_deadline, on the clock's now() scale); nullopt otherwise. A write
  // of the shard must be over by then.
  std::optional<TimePoint> valid_until(int shard) const;
  std::vector<int> held() const;
  // One list-renew-plan round (the loop calls it; exposed for tests).
  void round();

 private:
  struct Seen {
    bool exists = false;
    LeaseRecord record;
    rapidjson::Document object;
  };
  void run();
  void note(const std::string& name, const std::string& resource_version);
  LeaseAction action_for(const std::string& name, const Seen& seen, TimePoint now) const;
  bool write(const std::string& name, Seen& seen);
  void release_lease(const std::string& name);
  bool lose(int shard, const char* why);  // on_lost's answer
  void drop_overdue(TimePoint now);

  ShardLeaseConfig c_;
  const Clock& clock_;
  std::unique_ptr<Client> client_;
  std::unique_ptr<std::atomic<bool>[]> held_;
  std::unique_ptr<std::atomic<Duration::rep>[]> last_renew_;
  int member_slot_ = -1;
  // Observation (loop thread only): per Lease name, its last resourceVersion and when it changed.
  std::map<std::string, std::pair<std::string, TimePoint>> observed_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace dha::kube
