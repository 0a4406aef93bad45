#pragma once

// The families dashboards and alerts written for controller-runtime operators query, with
// controller-runtime's names, labels and meaning, so they work on this operator unchanged:
//   workqueue_*                       client-go's work queue metrics (label name), including the
//                                     work in progress, read from the queue at every scrape
//   controller_runtime_reconcile_*    reconcile outcomes and latency (label controller)
//   rest_client_*                     client-go's REST client metrics
// Each class registers its families on construction (registering twice shares them).

#include "dha/telemetry/registry.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace dha::telemetry {

class WorkQueueMetrics {
 public:
  WorkQueueMetrics(Registry& registry, const std::string& queue_name);
  ~WorkQueueMetrics();
  WorkQueueMetrics(const WorkQueueMetrics&) = delete;
  WorkQueueMetrics& operator=(const WorkQueueMetrics&) = delete;

  // The keys workers hold right now: the seconds they have been held in total and the longest.
  struct InFlight {
    double unfinished_seconds = 0;
    double longest_seconds = 0;
  };
  // Calls `read` at every scrape for workqueue_unfinished_work_seconds and
  // workqueue_longest_running_processor_seconds: elapsed time is read when scraped, so a stuck
  // worker shows even though it never reports. Replaces an earlier reader.
  void read_in_flight(std::function<InFlight()> read);
  // Once this returns `read` is never called again and the two series are gone, so whatever
  // `read` looks at may be destroyed. The destructor does it too.
  void stop_reading_in_flight();

  void added() { adds_->inc(); }
  void set_depth(std::size_t depth) { depth_->set(static_cast<double>(depth)); }
  // Seconds a key waited in the queue before a worker took it.
  void waited(double seconds) { queue_duration_->observe(seconds); }
  // Seconds a worker spent on a key.
  void worked(double seconds) { work_duration_->observe(seconds); }
  void retried() { retries_->inc(); }

 private:
  Registry& registry_;
  const std::string name_;
  GaugeFamily& unfinished_;
  GaugeFamily& longest_;
  std::mutex reader_mutex_;
  std::optional<std::uint64_t> reader_;  // collector id in registry_
  std::shared_ptr<Counter> adds_;
  std::shared_ptr<Gauge> depth_;
  std::shared_ptr<Histogram> queue_duration_;
  std::shared_ptr<Histogram> work_duration_;
  std::shared_ptr<Counter> retries_;
};

class ReconcileMetrics {
 public:
  // controller-runtime's reconcile results.
  enum class Result { success, error, requeue_after };

  ReconcileMetrics(Registry& registry, const std::string& controller, int max_concurrent);

  void finished(Result result, double seconds);
  void set_active_workers(int n) { active_workers_->set(n); }

 private:
  std::shared_ptr<Counter> success_, error_, requeue_after_;
  std::shared_ptr<Counter> errors_;
  std::shared_ptr<Histogram> time_;
  std::shared_ptr<Gauge> active_workers_;
};

class RestClientMetrics {
 public:
  explicit RestClientMetrics(Registry& registry);

  // One request that got an HTTP response (`code` its status) or none (code 0, counted as
  // "<error>", as client-go does). `host` is the API server's host:port.
  void request(const std::string& method, const std::string& host, int code, double seconds);
  // One streamed request (a watch), counted like a request but kept out of the latency
  // histogram, as client-go does: a stream lasts as long as its watch timeout.
  void stream(const std::string& method, const std::string& host, int code);

 private:
  CounterFamily& requests_;
  HistogramFamily& duration_;
};

}  // namespace dha::telemetry

namespace dha::telemetry {

// The kind label of db_autoscaler_decisions_total: a dry-run decision that would have scaled
// (or rolled back) is counted as DryRunScale (DryRunRollback), so `kind="Scale"` counts only
// changes that were made.
std::string decision_kind_label(const std::string& kind, bool dry_run);

}  // namespace dha::telemetry
