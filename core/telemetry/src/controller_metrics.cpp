#include "dha/telemetry/controller_metrics.hpp"

#include <algorithm>
#include <cctype>

namespace dha::telemetry {

WorkQueueMetrics::WorkQueueMetrics(Registry& r, const std::string& queue_name)
    : registry_(r),
      name_(queue_name),
      unfinished_(r.gauge("workqueue_unfinished_work_seconds",
                          "How many seconds of work has done that is in progress and hasn't been observed by "
                          "work_duration. Large values indicate stuck threads. One can deduce the number of stuck "
                          "threads by observing the rate at which this increases.",
                          {"name"})),
      longest_(r.gauge("workqueue_longest_running_processor_seconds",
                       "How many seconds has the longest running processor for workqueue been running.", {"name"})) {
  const LabelValues name{queue_name};
  adds_ = r.counter("workqueue_adds_total", "Total number of adds handled by workqueue", {"name"}).with(name);
  depth_ = r.gauge("workqueue_depth", "Current depth of workqueue", {"name"}).with(name);
  queue_duration_ = r.histogram("workqueue_queue_duration_seconds",
                                "How long in seconds an item stays in workqueue before being requested", {"name"},
                                exponential_buckets(1e-8, 10, 11))
                        .with(name);
  work_duration_ =
      r.histogram("workqueue_work_duration_seconds", "How long in seconds processing an item from workqueue takes",
                  {"name"}, exponential_buckets(1e-8, 10, 11))
          .with(name);
  retries_ = r.counter("workqueue_retries_total", "Total number of retries handled by workqueue", {"name"}).with(name);
}

WorkQueueMetrics::~WorkQueueMetrics() { stop_reading_in_flight(); }

void WorkQueueMetrics::read_in_flight(std::function<InFlight()> read) {
  stop_reading_in_flight();
  auto unfinished = unfinished_.with({name_});
  auto longest = longest_.with({name_});
  std::lock_guard lock(reader_mutex_);
  reader_ = registry_.add_collector([read = std::move(read), unfinished, longest] {
    const InFlight now = read();
    unfinished->set(now.unfinished_seconds);
    longest->set(now.longest_seconds);
  });
}

void WorkQueueMetrics::stop_reading_in_flight() {
  std::lock_guard lock(reader_mutex_);
  if (!reader_) return;
  // Under the registry's lock: a scrape either finished reading or will not start.
  registry_.remove_collector(*reader_);
  reader_.reset();
  unfinished_.remove({name_});
  longest_.remove({name_});
}

ReconcileMetrics::ReconcileMetrics(Registry& r, const std::string& controller, int max_concurrent) {
  auto& total = r.counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller",
                          {"controller", "result"});
  success_ = total.with({controller, "success"});
  error_ = total.with({controller, "error"});
  requeue_after_ = total.with({controller, "requeue_after"});
  errors_ = r.counter("controller_runtime_reconcile_errors_total",
                      "Total number of reconciliation errors per controller", {"controller"})
                .with({controller});
  time_ = r.histogram("controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller",
                      {"controller"}, {0.005, 0.01, 0.025, 0.05, 0.1,  0.15, 0.2,  0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
                                       0.7,   0.8,  0.9,   1.0,  1.25, 1.5,  1.75, 2.0,  2.5, 3.0,  3.5, 4.0,  4.5, 5,
                                       6,     7,    8,     9,    10,   15,   20,   25,   30,  40,   50,  60})
              .with({controller});
  r.gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller",
          {"controller"})
      .with({controller})
      ->set(max_concurrent);
  active_workers_ =
      r.gauge("controller_runtime_active_workers", "Number of currently used workers per controller", {"controller"})
          .with({controller});
}

void ReconcileMetrics::finished(Result result, double seconds) {
  switch (result) {
    case Result::success:
      success_->inc();
      break;
    case Result::requeue_after:
      requeue_after_->inc();
      break;
    case Result::error:
      error_->inc();
      errors_->inc();
      break;
  }
  time_->observe(seconds);
}

RestClientMetrics::RestClientMetrics(Registry& r)
    : requests_(r.counter("rest_client_requests_total",
                          "Number of HTTP requests, partitioned by status code, method, and host.",
                          {"code", "method", "host"})),
      duration_(r.histogram("rest_client_request_duration_seconds",
                            "Request latency in seconds. Broken down by verb, and host.", {"verb", "host"},
                            {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0})) {}

void RestClientMetrics::request(const std::string& method, const std::string& host, int code, double seconds) {
  stream(method, host, code);
  duration_.with({method, host})->observe(seconds);
}

void RestClientMetrics::stream(const std::string& method, const std::string& host, int code) {
  requests_.with({code > 0 ? std::to_string(code) : "<error>", method, host})->inc();
}

}  // namespace dha::telemetry

namespace dha::telemetry {

std::string decision_kind_label(const std::string& kind, bool dry_run) {
  if (dry_run && (kind == "Scale" || kind == "Rollback")) return "DryRun" + kind;
  return kind;
}

}  // namespace dha::telemetry
