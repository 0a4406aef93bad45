#include "operator/sharded_work.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "dha/kube/client.hpp"
#include "dha/kube/shard_assignment.hpp"

namespace dha::op {
namespace {

// Two DHA keys in different shards of 2 (pinned in ShardHash.PinnedValues).
constexpr const char* kShard0 = "tenant-root/mysql-main";
constexpr const char* kShard1 = "tenant-a/pg";

class ShardedWorkTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(kube::shard_of(kShard0, 2), 0);
    ASSERT_EQ(kube::shard_of(kShard1, 2), 1);
    work.attach([this](int shard) -> std::optional<kube::TimePoint> {
      if (held.count(shard) == 0) return std::nullopt;
      return std::chrono::steady_clock::now() + std::chrono::seconds(10);
    });
  }
  ShardedWork work{2};
  std::set<int> held{0};
};

// By namespace, a key goes where its namespace goes, whatever its name: tenant-e's DHAs are all
// in shard 0 of 2 (pinned in ShardHash.ByNamespaceKeepsATenantTogether), although
// "tenant-e/orders" is in shard 1 by namespace/name.
TEST(ShardedWorkByNamespace, OwnsEveryDhaOfANamespaceOfAHeldShard) {
  ShardedWork by_namespace(2, kube::ShardKey::namespace_only);
  by_namespace.attach([](int shard) -> std::optional<kube::TimePoint> {
    if (shard != 0) return std::nullopt;
    return std::chrono::steady_clock::now() + std::chrono::seconds(10);
  });
  for (const char* key : {"tenant-e/orders", "tenant-e/pg", "tenant-e/db-dha"}) {
    EXPECT_EQ(by_namespace.shard_of(key), 0) << key;
    EXPECT_TRUE(by_namespace.owns(key)) << key;
  }
  EXPECT_FALSE(by_namespace.owns("tenant-a/pg"));
  EXPECT_EQ(ShardedWork(2).shard_of("tenant-e/orders"), 1) << "namespace/name stays the default";
}

TEST_F(ShardedWorkTest, ReconcilesOnlyKeysOfHeldShards) {
  int runs = 0;
  auto run = [&](const std::string&) -> kube::ReconcileResult {
    ++runs;
    return kube::RequeueAfter{std::chrono::seconds(60)};
  };
  EXPECT_TRUE(std::holds_alternative<kube::RequeueAfter>(work.reconcile(kShard0, run)));
  // Another replica's shard: dropped, not requeued (it comes back when its shard is gained).
  EXPECT_TRUE(std::holds_alternative<kube::Done>(work.reconcile(kShard1, run)));
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(work.owns(kShard0));
  EXPECT_FALSE(work.owns(kShard1));
}

TEST_F(ShardedWorkTest, FenceLetsThroughOnlyWritesOfTheReconciledShardWhileHeld) {
  EXPECT_THROW(work.fence(), kube::WriteFenced) << "a write outside any reconcile";
  work.reconcile(kShard0, [&](const std::string&) -> kube::ReconcileResult {
    EXPECT_GT(work.fence(), std::chrono::steady_clock::now()) << "a deadline in the future";
    held.erase(0);  // the shard is lost mid-reconcile
    EXPECT_THROW(work.fence(), kube::WriteFenced);
    return kube::Done{};
  });
  EXPECT_THROW(work.fence(), kube::WriteFenced) << "the scope ends with the reconcile";
}

TEST_F(ShardedWorkTest, AResultAfterTheShardWasLostIsDropped) {
  const auto result = work.reconcile(kShard0, [&](const std::string&) -> kube::ReconcileResult {
    held.erase(0);
    return kube::Error{"fenced"};
  });
  EXPECT_TRUE(std::holds_alternative<kube::Done>(result)) << "no retry with backoff for a shard we no longer hold";
}

TEST_F(ShardedWorkTest, DrainWaitsForTheShardsReconcilesBounded) {
  std::atomic<bool> release{false};
  std::atomic<bool> started{false};
  std::thread worker([&] {
    work.reconcile(kShard0, [&](const std::string&) -> kube::ReconcileResult {
      started = true;
      while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return kube::Done{};
    });
  });
  while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(work.drain(1, std::chrono::milliseconds(0))) << "nothing of shard 1 runs";
  EXPECT_FALSE(work.drain(0, std::chrono::milliseconds(50))) << "bounded: gives up while shard 0 still runs";
  release = true;
  EXPECT_TRUE(work.drain(0, std::chrono::seconds(5)));
  worker.join();
}

}  // namespace
}  // namespace dha::op
