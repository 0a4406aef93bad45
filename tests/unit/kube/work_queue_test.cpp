#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "dha/kube/work_queue.hpp"

namespace dha::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(KubeWorkQueue, DedupesQueuedKeys) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add("a");
  q.add("b");
  q.add("a");
  EXPECT_EQ(q.ready_count(), 2u);
  EXPECT_EQ(q.try_get(), "a");
  EXPECT_EQ(q.try_get(), "b");
  EXPECT_EQ(q.try_get(), std::nullopt);
}

TEST(KubeWorkQueue, KeyBeingProcessedIsNotHandedOutTwiceAndIsRequeuedOnDone) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add("a");
  ASSERT_EQ(q.try_get(), "a");
  q.add("a");  // changed while a worker holds it
  q.add("a");
  EXPECT_EQ(q.try_get(), std::nullopt) << "same key handed to a second worker";
  EXPECT_TRUE(q.is_processing("a"));
  q.done("a");
  EXPECT_EQ(q.try_get(), "a");
  q.done("a");
  EXPECT_EQ(q.try_get(), std::nullopt) << "re-added once, processed once";
}

TEST(KubeWorkQueue, DoneWithoutReAddDropsTheKey) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add("a");
  ASSERT_EQ(q.try_get(), "a");
  q.done("a");
  EXPECT_EQ(q.try_get(), std::nullopt);
  EXPECT_FALSE(q.is_processing("a"));
}

TEST(KubeWorkQueue, AddAfterWaitsForTheClockAndEarliestScheduleWins) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add_after("a", seconds(10));
  q.add_after("a", seconds(3));
  q.add_after("a", seconds(20));  // later than the pending one: ignored
  EXPECT_EQ(q.delayed_count(), 1u);
  clock.advance(seconds(2));
  EXPECT_EQ(q.try_get(), std::nullopt);
  clock.advance(seconds(1));
  EXPECT_EQ(q.try_get(), "a");
  q.done("a");
  clock.advance(seconds(30));
  EXPECT_EQ(q.try_get(), std::nullopt) << "the dropped 10s/20s schedules must not fire";
}

TEST(KubeWorkQueue, DelayedKeyAlreadyQueuedIsNotDuplicated) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add("a");
  q.add_after("a", seconds(1));
  clock.advance(seconds(1));
  EXPECT_EQ(q.try_get(), "a");
  EXPECT_EQ(q.try_get(), std::nullopt);
}

TEST(KubeWorkQueue, ZeroDelayIsImmediate) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add_after("a", Duration::zero());
  EXPECT_EQ(q.try_get(), "a");
}

struct BackoffCase {
  int failures;
  Duration want;
};
class KubeBackoff : public testing::TestWithParam<BackoffCase> {};
TEST_P(KubeBackoff, DoublesFromBaseUpToCap) {
  const BackoffPolicy p{milliseconds(5), seconds(1000)};
  EXPECT_EQ(p.delay_for(GetParam().failures), GetParam().want);
}
INSTANTIATE_TEST_SUITE_P(Table, KubeBackoff,
                         testing::Values(BackoffCase{0, Duration::zero()}, BackoffCase{1, milliseconds(5)},
                                         BackoffCase{2, milliseconds(10)}, BackoffCase{3, milliseconds(20)},
                                         BackoffCase{10, milliseconds(2560)}, BackoffCase{18, milliseconds(655360)},
                                         BackoffCase{19, seconds(1000)}, BackoffCase{1000, seconds(1000)},
                                         BackoffCase{std::numeric_limits<int>::max(), seconds(1000)}));

TEST(KubeWorkQueue, RateLimitedRetriesBackOffPerKeyAndForgetResets) {
  FakeClock clock;
  WorkQueue q(clock, BackoffPolicy{seconds(1), seconds(4)});
  const Duration expected[] = {seconds(1), seconds(2), seconds(4), seconds(4)};
  for (Duration want : expected) {
    q.add_rate_limited("a");
    clock.advance(want - milliseconds(1));
    EXPECT_EQ(q.try_get(), std::nullopt) << "fired before " << want.count();
    clock.advance(milliseconds(1));
    ASSERT_EQ(q.try_get(), "a");
    q.done("a");
  }
  EXPECT_EQ(q.failures("a"), 4);
  EXPECT_EQ(q.failures("b"), 0) << "backoff is per key";
  q.forget("a");
  EXPECT_EQ(q.failures("a"), 0);
  q.add_rate_limited("a");
  clock.advance(seconds(1));
  EXPECT_EQ(q.try_get(), "a");
}

TEST(KubeWorkQueue, ShutDownWakesBlockedGetAndRefusesWork) {
  WorkQueue q;
  std::atomic<bool> returned{false};
  std::optional<std::string> got = "sentinel";
  std::thread t([&] {
    got = q.get();
    returned = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(returned.load());
  q.shut_down();
  t.join();
  EXPECT_EQ(got, std::nullopt);
  q.add("a");
  EXPECT_EQ(q.try_get(), std::nullopt);
  EXPECT_TRUE(q.shutting_down());
}

TEST(KubeWorkQueue, BlockedGetSeesDelayedKeyWhenFakeClockAdvances) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add_after("a", seconds(60));
  std::optional<std::string> got;
  std::thread t([&] { got = q.get(); });
  std::this_thread::sleep_for(milliseconds(30));
  clock.advance(seconds(60));
  q.wake();
  t.join();
  EXPECT_EQ(got, "a");
}

TEST(KubeWorkQueue, ConcurrentWorkersNeverHoldTheSameKey) {
  WorkQueue q;
  std::atomic<int> in_flight_a{0};
  std::atomic<int> max_in_flight_a{0};
  std::atomic<int> processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto key = q.get()) {
        if (*key == "a") {
          const int now = ++in_flight_a;
          int prev = max_in_flight_a.load();
          while (now > prev && !max_in_flight_a.compare_exchange_weak(prev, now)) {
          }
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          --in_flight_a;
        }
        ++processed;
        q.done(*key);
      }
    });
  }
  for (int i = 0; i < 300; ++i) {
    q.add("a");
    q.add("k" + std::to_string(i % 7));
    if (i % 50 == 0) std::this_thread::sleep_for(milliseconds(1));
  }
  std::this_thread::sleep_for(milliseconds(100));
  q.shut_down();
  for (auto& t : workers) t.join();
  EXPECT_EQ(max_in_flight_a.load(), 1);
  EXPECT_GT(processed.load(), 0);
}

}  // namespace
}  // namespace dha::kube

namespace dha::kube {
namespace {

// One tenant's burst (a thousand DHAs queued by spec writes) and another tenant's one key: the
// second is handed out next, not after the thousand.
TEST(KubeWorkQueueFairness, NamespacesTakeTurns) {
  FakeClock clock;
  WorkQueue q(clock);
  for (int i = 0; i < 1000; ++i) q.add("tenant-a/db-" + std::to_string(i));
  ASSERT_EQ(q.try_get(), "tenant-a/db-0");
  q.done("tenant-a/db-0");
  q.add("tenant-b/db");
  q.add("tenant-c/db");
  EXPECT_EQ(q.try_get(), "tenant-a/db-1");  // none in flight anywhere: tenant-a's turn came first
  EXPECT_EQ(q.try_get(), "tenant-b/db");
  EXPECT_EQ(q.try_get(), "tenant-c/db");
  EXPECT_EQ(q.try_get(), "tenant-a/db-2");
  EXPECT_EQ(q.ready_count(), 997u);
  // tenant-a holds two workers, tenant-b none: tenant-b's next key goes first.
  q.done("tenant-b/db");
  q.add("tenant-b/db");
  EXPECT_EQ(q.try_get(), "tenant-b/db");
}

// Eight workers busy with one tenant's reconciles: the next free worker takes the other tenant's
// key, whatever the first tenant keeps queueing meanwhile.
TEST(KubeWorkQueueFairness, AFreedWorkerServesTheWaitingTenantFirst) {
  FakeClock clock;
  WorkQueue q(clock);
  for (int i = 0; i < 8; ++i) q.add("tenant-a/db-" + std::to_string(i));
  std::vector<std::string> held;
  for (int i = 0; i < 8; ++i) held.push_back(*q.try_get());
  for (int i = 8; i < 500; ++i) q.add("tenant-a/db-" + std::to_string(i));  // 140 writes/s, and more
  q.add("tenant-b/db");
  q.done(held[0]);
  EXPECT_EQ(q.try_get(), "tenant-b/db");
  q.done(held[1]);
  EXPECT_EQ(q.try_get(), "tenant-a/db-8");
}

TEST(KubeWorkQueueFairness, KeysWithoutANamespaceShareOneTurn) {
  FakeClock clock;
  WorkQueue q(clock);
  q.add("a");
  q.add("b");
  q.add("ns/x");
  EXPECT_EQ(q.try_get(), "a");
  EXPECT_EQ(q.try_get(), "ns/x");
  EXPECT_EQ(q.try_get(), "b");
}

}  // namespace
}  // namespace dha::kube
