#include "operator/sharded_work.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/shard_assignment.hpp"

namespace dha::op {
namespace {

// The shard whose DHA this thread reconciles now; -1 outside a reconcile.
thread_local int current_shard = -1;

}  // namespace

ShardedWork::ShardedWork(int shards, kube::ShardKey by)
    : shards_(shards), by_(by), running_(static_cast<std::size_t>(shards), 0) {}

int ShardedWork::shard_of(const std::string& key) const { return kube::shard_of(key, shards_, by_); }

bool ShardedWork::owns(const std::string& key) const {
  const auto until = valid_until_ ? valid_until_(shard_of(key)) : std::nullopt;
  return until.has_value() && std::chrono::steady_clock::now() < *until;
}

kube::ReconcileResult ShardedWork::reconcile(const std::string& key,
                                             const std::function<kube::ReconcileResult(const std::string&)>& run) {
  const int shard = shard_of(key);
  if (!owns(key)) return kube::Done{};
  {
    std::lock_guard lock(mu_);
    ++running_[shard];
  }
  struct Scope {
    ShardedWork& work;
    int shard;
    Scope(ShardedWork& w, int s) : work(w), shard(s) { current_shard = s; }
    ~Scope() {
      current_shard = -1;
      {
        std::lock_guard lock(work.mu_);
        --work.running_[shard];
      }
      work.idle_.notify_all();
    }
  } scope(*this, shard);
  kube::ReconcileResult result = run(key);
  if (!owns(key)) return kube::Done{};
  return result;
}

kube::TimePoint ShardedWork::fence() const {
  const int shard = current_shard;
  if (shard < 0) throw kube::WriteFenced("not writing: no DHA of a held shard is being reconciled on this thread");
  const auto until = valid_until_ ? valid_until_(shard) : std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  if (until && now < *until) return *until;
  if (!until)
    throw kube::WriteFenced(
        fmt::format("not writing: this replica does not hold the lease of shard {} of {}", shard, shards_));
  throw kube::WriteFenced(fmt::format("not writing: the lease of shard {} of {} ran out {:.1f} s ago", shard, shards_,
                                      std::chrono::duration<double>(now - *until).count()));
}

bool ShardedWork::drain(int shard, std::chrono::milliseconds limit) {
  std::unique_lock lock(mu_);
  return idle_.wait_for(lock, limit, [&] { return running_[static_cast<std::size_t>(shard)] == 0; });
}

std::unique_ptr<kube::ShardLeases> start_shard_leases(const kube::Config& config, kube::ShardLeaseConfig c,
                                                      ShardedWork& work, const kube::Informer& dhas,
                                                      kube::WorkQueue& queue, SelfMetrics& metrics,
                                                      std::function<void(const std::string& key)> forget) {
  auto leases_box = std::make_shared<const kube::ShardLeases*>(nullptr);
  c.shards = work.shards();
  auto keys_of = [&work, &dhas](int shard) {
    std::vector<std::string> keys;
    for (const auto& dha : dhas.list())
      if (std::string key = kube::key_of(*dha); work.shard_of(key) == shard) keys.push_back(std::move(key));
    return keys;
  };
  for (int shard = 0; shard < c.shards; ++shard)
    metrics.set_lease_held(kube::shard_lease_name(c.lease_name, shard), false);  // a candidate for each
  c.on_gained = [keys_of, forget, &work, &queue, &metrics, prefix = c.lease_name](int shard) {
    metrics.set_leader(true);
    metrics.set_shard_held(shard, true);
    metrics.set_lease_held(kube::shard_lease_name(prefix, shard), true);
    int queued = 0;
    for (const auto& key : keys_of(shard)) {
      forget(key);
      queue.add(key);
      ++queued;
    }
    spdlog::info("reconciling shard {} of {}: {} DHAs queued", shard, work.shards(), queued);
  };
  // One retry period: the Lease loop waits for this before it renews the other shards.
  const auto limit = std::chrono::duration_cast<std::chrono::milliseconds>(c.retry_period);
  c.on_lost = [keys_of, forget, &work, &metrics, leases_box, limit, prefix = c.lease_name](int shard) {
    const bool drained = work.drain(shard, limit);
    for (const auto& key : keys_of(shard)) forget(key);
    if (!drained)
      spdlog::warn("shard {}: reconciles still running {} ms after the shard was lost; their writes are refused", shard,
                   limit.count());
    metrics.set_shard_held(shard, false);
    metrics.set_lease_held(kube::shard_lease_name(prefix, shard), false);
    metrics.set_leader(*leases_box != nullptr && !(*leases_box)->held().empty());
    spdlog::info("stopped reconciling shard {} of {}", shard, work.shards());
    return drained;
  };
  auto leases = std::make_unique<kube::ShardLeases>(config, std::move(c));
  *leases_box = leases.get();
  work.attach([l = leases.get()](int shard) { return l->valid_until(shard); });
  leases->start();
  return leases;
}

}  // namespace dha::op
