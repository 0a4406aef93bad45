// The controller's workqueue_* and controller_runtime_reconcile_* series, as dashboards built
// for controller-runtime operators read them.

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "dha/kube/controller.hpp"
#include "dha/telemetry/registry.hpp"

namespace dha::kube {
namespace {

using std::chrono::seconds;

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(ControllerMetrics, ReconcileOutcomesAndQueueTimesAreCountedAsControllerRuntimeDoes) {
  FakeClock clock;
  telemetry::Registry registry;
  std::map<std::string, ReconcileResult> script{
      {"ns/done", Done{}}, {"ns/later", RequeueAfter{seconds(30)}}, {"ns/flaky", Error{"metrics down"}}};
  ControllerOptions options{1, BackoffPolicy{seconds(1), seconds(8)}, &clock};
  options.metrics = &registry;
  Controller c(
      "dha", [&](const std::string& key) -> ReconcileResult { return script.at(key); }, options);

  for (const char* k : {"ns/done", "ns/later", "ns/flaky"}) c.queue().add(k);
  c.queue().add("ns/done");  // already waiting: not another add
  std::string text = registry.expose();
  EXPECT_TRUE(has_line(text, "workqueue_depth{name=\"dha\"} 3")) << text;

  clock.advance(seconds(2));  // each key waits 2 s before a worker takes it
  while (c.process_one()) {
  }
  text = registry.expose();
  for (const char* line :
       {"workqueue_adds_total{name=\"dha\"} 3", "workqueue_depth{name=\"dha\"} 0",
        "workqueue_retries_total{name=\"dha\"} 1", "workqueue_queue_duration_seconds_sum{name=\"dha\"} 6",
        "workqueue_queue_duration_seconds_count{name=\"dha\"} 3",
        "workqueue_work_duration_seconds_count{name=\"dha\"} 3",
        "controller_runtime_reconcile_total{controller=\"dha\",result=\"success\"} 1",
        "controller_runtime_reconcile_total{controller=\"dha\",result=\"requeue_after\"} 1",
        "controller_runtime_reconcile_total{controller=\"dha\",result=\"error\"} 1",
        "controller_runtime_reconcile_errors_total{controller=\"dha\"} 1",
        "controller_runtime_reconcile_time_seconds_count{controller=\"dha\"} 3",
        "controller_runtime_max_concurrent_reconciles{controller=\"dha\"} 1",
        "controller_runtime_active_workers{controller=\"dha\"} 0"}) {
    EXPECT_TRUE(has_line(text, line)) << line << "\n" << text;
  }
}

TEST(ControllerMetrics, ABusyProcessorShowsGrowingSecondsUntilDone) {
  FakeClock clock;
  telemetry::Registry registry;
  WorkQueue queue(clock);
  queue.set_metrics(std::make_shared<telemetry::WorkQueueMetrics>(registry, "dha"));
  std::string text = registry.expose();
  EXPECT_TRUE(has_line(text, "workqueue_unfinished_work_seconds{name=\"dha\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "workqueue_longest_running_processor_seconds{name=\"dha\"} 0")) << text;

  queue.add("ns/slow");
  queue.add("ns/quick");
  ASSERT_EQ(queue.try_get(), "ns/slow");
  clock.advance(seconds(3));
  ASSERT_EQ(queue.try_get(), "ns/quick");
  clock.advance(seconds(2));
  // Held 5 s and 2 s: nothing has reported yet, the scrape reads the clock.
  text = registry.expose();
  EXPECT_TRUE(has_line(text, "workqueue_unfinished_work_seconds{name=\"dha\"} 7")) << text;
  EXPECT_TRUE(has_line(text, "workqueue_longest_running_processor_seconds{name=\"dha\"} 5")) << text;

  clock.advance(seconds(10));
  queue.done("ns/slow");
  text = registry.expose();
  EXPECT_TRUE(has_line(text, "workqueue_unfinished_work_seconds{name=\"dha\"} 12")) << text;
  EXPECT_TRUE(has_line(text, "workqueue_longest_running_processor_seconds{name=\"dha\"} 12")) << text;

  queue.done("ns/quick");
  text = registry.expose();
  EXPECT_TRUE(has_line(text, "workqueue_unfinished_work_seconds{name=\"dha\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "workqueue_longest_running_processor_seconds{name=\"dha\"} 0")) << text;
}

TEST(ControllerMetrics, ADestroyedQueueLeavesNoSeriesAndScrapesKeepWorking) {
  telemetry::Registry registry;
  // Held past the queue, as anything sharing the queue's metrics may: the queue itself must
  // stop them reading it.
  auto metrics = std::make_shared<telemetry::WorkQueueMetrics>(registry, "gone");
  {
    FakeClock clock;
    WorkQueue queue(clock);
    queue.set_metrics(metrics);
    queue.add("ns/a");
    ASSERT_TRUE(queue.try_get().has_value());  // destroyed while a key is held
    ASSERT_NE(registry.expose().find("workqueue_longest_running_processor_seconds{name=\"gone\"}"), std::string::npos);
  }
  const std::string text = registry.expose();
  EXPECT_EQ(text.find("workqueue_unfinished_work_seconds{"), std::string::npos) << text;
  EXPECT_EQ(text.find("workqueue_longest_running_processor_seconds{"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_adds_total{name=\"gone\"} 1"), std::string::npos) << text;
}

TEST(ControllerMetrics, QueuesDestroyedWhileBeingScrapedAreNeverRead) {
  // Bounded: 200 queues created, used and destroyed while another thread scrapes.
  const Clock& clock = SystemClock::instance();
  telemetry::Registry registry;
  std::atomic<bool> stop{false};
  std::atomic<int> scrapes{0};
  std::thread scraper([&] {
    while (!stop) {
      registry.expose();
      ++scrapes;
    }
  });
  for (int i = 0; i < 200; ++i) {
    auto queue = std::make_unique<WorkQueue>(clock);
    queue->set_metrics(std::make_shared<telemetry::WorkQueueMetrics>(registry, "q" + std::to_string(i % 3)));
    queue->add("ns/k");
    queue->try_get();
  }
  while (scrapes < 5) std::this_thread::yield();
  stop = true;
  scraper.join();
  EXPECT_EQ(registry.expose().find("workqueue_unfinished_work_seconds{"), std::string::npos);
}

TEST(ControllerMetrics, WithoutARegistryNothingIsMeasured) {
  FakeClock clock;
  Controller c(
      "dha", [](const std::string&) -> ReconcileResult { return Done{}; }, ControllerOptions{1, {}, &clock});
  c.queue().add("ns/a");
  EXPECT_TRUE(c.process_one().has_value());
}

}  // namespace
}  // namespace dha::kube
