#pragma once
// The operator's half of sharding (--shards N > 1): which DHAs this replica may reconcile now,
// and the fence its writes pass. The Leases themselves are kube::ShardLeases.
//
// A reconcile runs only for a DHA whose shard (kube::shard_of of "namespace/name", or of its
// namespace with --shard-key=namespace) this replica holds; a key of another shard is dropped
// when a worker takes it (it comes back when its shard is gained). The reconcile runs with its shard in scope, so
// fence() — called before every write of the shared client — lets through only writes of a shard still held, as of now.
// A result that comes back after the shard was lost is dropped too: no retry, no requeue here.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dha/kube/informer.hpp"
#include "dha/kube/reconcile.hpp"
#include "dha/kube/shard_assignment.hpp"
#include "dha/kube/shard_leases.hpp"
#include "dha/kube/work_queue.hpp"
#include "host/self_metrics.hpp"

namespace dha::op {

class ShardedWork {
 public:
  explicit ShardedWork(int shards, kube::ShardKey by = kube::ShardKey::namespace_name);

  // Before any reconcile runs: until when this replica's writes of a shard are covered by its
  // Lease, nullopt when it does not hold it (kube::ShardLeases::valid_until; steady clock).
  using ValidUntil = std::function<std::optional<kube::TimePoint>(int shard)>;
  void attach(ValidUntil valid_until) { valid_until_ = std::move(valid_until); }
  int shards() const { return shards_; }
  int shard_of(const std::string& key) const;
  bool owns(const std::string& key) const;

  kube::ReconcileResult reconcile(const std::string& key,
                                  const std::function<kube::ReconcileResult(const std::string&)>& run);
  // The write fence: the time by which a write must be over (the end of the Lease of the shard
  // the calling thread reconciles); throws kube::WriteFenced, with the numbers, when there is none.
  kube::TimePoint fence() const;
  // Waits until no reconcile of `shard` runs, at most `limit`; false when one still does.
  bool drain(int shard, std::chrono::milliseconds limit);

 private:
  const int shards_;
  const kube::ShardKey by_;
  ValidUntil valid_until_;
  std::mutex mu_;
  std::condition_variable idle_;
  std::vector<int> running_;  // reconciles in flight, per shard
};

// Creates and starts the shard Leases of `work`: a gained shard enqueues its DHAs (from the DHA
// cache) at once; a lost one waits up to one retry period for its reconciles to end. The
// leader gauge says whether this replica holds any shard.
// `forget` drops what the process keeps for one DHA ("namespace/name"): called for each DHA of a
// shard when it is lost and again when it is gained, so a state kept from before (a status write
// the fence refused, to be restored later) never overwrites what the other holder wrote since.
std::unique_ptr<kube::ShardLeases> start_shard_leases(const kube::Config& config, kube::ShardLeaseConfig c,
                                                      ShardedWork& work, const kube::Informer& dhas,
                                                      kube::WorkQueue& queue, SelfMetrics& metrics,
                                                      std::function<void(const std::string& key)> forget);

}  // namespace dha::op
