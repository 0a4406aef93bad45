// The controller's workqueue_* and controller_runtime_reconcile_* series, as dashboards built
// for controller-runtime operators read them.

#include <gtest/gtest.h>

#include <map>
#include <string>

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
  Controller c("dha", [&](const std::string& key) -> ReconcileResult { return script.at(key); }, options);

  for (const char* k : {"ns/done", "ns/later", "ns/flaky"}) c.queue().add(k);
  c.queue().add("ns/done");  // already waiting: not another add
  std::string text = registry.expose();
  EXPECT_TRUE(has_line(text, "workqueue_depth{name=\"dha\"} 3")) << text;

  clock.advance(seconds(2));  // each key waits 2 s before a worker takes it
  while (c.process_one()) {
  }
  text = registry.expose();
  for (const char* line : {"workqueue_adds_total{name=\"dha\"} 3", "workqueue_depth{name=\"dha\"} 0",
                           "workqueue_retries_total{name=\"dha\"} 1",
                           "workqueue_queue_duration_seconds_sum{name=\"dha\"} 6",
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

TEST(ControllerMetrics, WithoutARegistryNothingIsMeasured) {
  FakeClock clock;
  Controller c("dha", [](const std::string&) -> ReconcileResult { return Done{}; }, ControllerOptions{1, {}, &clock});
  c.queue().add("ns/a");
  EXPECT_TRUE(c.process_one().has_value());
}

}  // namespace
}  // namespace dha::kube
