#pragma once

// The families dashboards and alerts written for controller-runtime operators query, with
// controller-runtime's names, labels and meaning, so they work on this operator unchanged:
//   workqueue_*                       client-go's work queue metrics (label name)
//   controller_runtime_reconcile_*    reconcile outcomes and latency (label controller)
//   rest_client_*                     client-go's REST client metrics
// Each class registers its families on construction (registering twice shares them).

#include <dha/telemetry/registry.hpp>

#include <memory>
#include <string>

namespace dha::telemetry {

class WorkQueueMetrics {
public:
  WorkQueueMetrics(Registry& registry, const std::string& queue_name);

  void added() { adds_->inc(); }
  void set_depth(std::size_t depth) { depth_->set(static_cast<double>(depth)); }
  // Seconds a key waited in the queue before a worker took it.
  void waited(double seconds) { queue_duration_->observe(seconds); }
  // Seconds a worker spent on a key.
  void worked(double seconds) { work_duration_->observe(seconds); }
  void retried() { retries_->inc(); }

private:
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

private:
  CounterFamily& requests_;
  HistogramFamily& duration_;
};

} // namespace dha::telemetry

namespace dha::telemetry {

// The kind label of db_autoscaler_decisions_total: a dry-run decision that would have scaled
// (or rolled back) is counted as DryRunScale (DryRunRollback), so `kind="Scale"` counts only
// changes that were made.
std::string decision_kind_label(const std::string& kind, bool dry_run);

} // namespace dha::telemetry
