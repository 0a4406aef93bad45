#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "dha/kube/controller.hpp"

namespace dha::kube {
namespace {

using std::chrono::seconds;

TEST(KubeController, ProcessOneRoutesEveryResultThroughTheQueue) {
  FakeClock clock;
  std::map<std::string, ReconcileResult> script{{"ns/done", Done{}},
                                                {"ns/later", RequeueAfter{seconds(30)}},
                                                {"ns/flaky", Error{"metrics down"}},
                                                {"ns/broken", Error{"bad spec", true}}};
  std::vector<std::string> calls;
  Controller c(
      "test",
      [&](const std::string& key) -> ReconcileResult {
        calls.push_back(key);
        if (key == "ns/throws") throw std::runtime_error("boom");
        return script.at(key);
      },
      ControllerOptions{1, BackoffPolicy{seconds(1), seconds(8)}, &clock});

  for (const char* k : {"ns/done", "ns/later", "ns/flaky", "ns/broken", "ns/throws"}) c.queue().add(k);
  std::vector<QueueAction> actions;
  while (auto a = c.process_one()) actions.push_back(*a);
  EXPECT_EQ(actions,
            (std::vector<QueueAction>{QueueAction::Forget, QueueAction::RequeueAfter, QueueAction::RetryWithBackoff,
                                      QueueAction::DropTerminal, QueueAction::RetryWithBackoff}));
  EXPECT_EQ(c.queue().failures("ns/throws"), 1) << "an exception is a retryable error";

  calls.clear();
  clock.advance(seconds(1));  // backoff of flaky and throws
  while (c.process_one()) {
  }
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, (std::vector<std::string>{"ns/flaky", "ns/throws"}));

  calls.clear();
  clock.advance(seconds(29));
  while (c.process_one()) {
  }
  // flaky failed twice → 2s backoff, throws twice → 2s; later fires at 30s.
  std::sort(calls.begin(), calls.end());
  EXPECT_EQ(calls, (std::vector<std::string>{"ns/flaky", "ns/later", "ns/throws"}));
}

TEST(KubeController, WorkersStopCleanly) {
  std::atomic<int> n{0};
  Controller c(
      "test",
      [&](const std::string&) -> ReconcileResult {
        ++n;
        return Done{};
      },
      ControllerOptions{2});
  c.start();
  for (int i = 0; i < 20; ++i) c.queue().add("k" + std::to_string(i));
  for (int i = 0; i < 200 && n.load() < 20; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  c.stop();
  EXPECT_EQ(n.load(), 20);
  EXPECT_THROW(Controller(
                   "bad", [](const std::string&) -> ReconcileResult { return Done{}; }, ControllerOptions{0}),
               std::invalid_argument);
}

// stop_within: what is queued never starts, what is in flight gets the drain and no more.
TEST(KubeController, StopWithinDropsTheQueueAndLeavesABlockedReconcileBehind) {
  // Static: a reconcile left behind still uses the controller (and these) after the test's scope.
  static std::atomic<bool> release{false};
  static std::atomic<int> started{0};
  static Controller* c = new Controller(
      "test",
      [](const std::string&) -> ReconcileResult {
        ++started;
        while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return Done{};
      },
      ControllerOptions{1});
  c->start();
  c->queue().add("blocked");
  for (int i = 0; i < 400 && c->in_flight() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(c->in_flight(), 1);
  c->queue().add("queued");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(c->stop_within(std::chrono::milliseconds(200)));
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_LT(waited, std::chrono::seconds(2));
  EXPECT_EQ(c->in_flight(), 1) << "the blocked reconcile is still running, left behind";
  release = true;
  for (int i = 0; i < 400 && c->in_flight() == 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(started.load(), 1) << "the queued key started after the stop";
}

TEST(KubeController, StopWithinReturnsOnceTheReconcilesInFlightFinish) {
  std::atomic<int> n{0};
  Controller c(
      "test",
      [&](const std::string&) -> ReconcileResult {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ++n;
        return Done{};
      },
      ControllerOptions{2});
  c.start();
  c.queue().add("a");
  for (int i = 0; i < 400 && c.in_flight() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(c.stop_within(std::chrono::seconds(5)));
  EXPECT_EQ(n.load(), 1);
  EXPECT_EQ(c.in_flight(), 0);
}

TEST(KubeOwnerIndex, MapsSecondariesToOwnersAndForgetsOldReferences) {
  OwnerIndex idx;
  const ResourceRef pg{"apps.cozystack.io", "v1alpha1", "postgreses", "", ""};
  const ResourceRef wm{"cozystack.io", "v1alpha1", "workloadmonitors", "", ""};
  idx.set("t/dha1", {secondary_key(pg, "t", "db"), secondary_key(wm, "t", "postgres-db")});
  idx.set("t/dha2", {secondary_key(pg, "t", "db")});
  EXPECT_EQ(idx.owners_of("postgreses.apps.cozystack.io/t/db"), (std::vector<std::string>{"t/dha1", "t/dha2"}));
  EXPECT_EQ(idx.owners_of(secondary_key(wm, "t", "postgres-db")), (std::vector<std::string>{"t/dha1"}));
  // dha1 retargets: the old target no longer maps to it.
  idx.set("t/dha1", {secondary_key(pg, "t", "db2")});
  EXPECT_EQ(idx.owners_of(secondary_key(pg, "t", "db")), (std::vector<std::string>{"t/dha2"}));
  EXPECT_TRUE(idx.owners_of(secondary_key(wm, "t", "postgres-db")).empty());
  idx.remove_owner("t/dha2");
  EXPECT_TRUE(idx.owners_of(secondary_key(pg, "t", "db")).empty());
  EXPECT_EQ(secondary_key({"", "v1", "namespaces", "", ""}, "", "t"), "namespaces//t");
}

}  // namespace
}  // namespace dha::kube
