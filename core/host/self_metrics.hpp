#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "dha/telemetry/registry.hpp"

// The operator's own series (docs/behaviour.md#self-metrics, and the chart's metrics contract in
// charts/db-autoscaler/README.md). Per-DHA gauges are refreshed on EVERY reconcile outcome and
// deleted when the DHA goes away. Thread-safe.
namespace dha::op {

// What one reconcile outcome says about a DHA.
struct DhaGauges {
  std::int32_t current = 0;
  std::int32_t desired = 0;
  bool limited = false;  // ScalingLimited True or an ownership conflict
  bool frozen = false;   // AbleToScale False (backoff hold included)
};

class SelfMetrics {
 public:
  explicit SelfMetrics(telemetry::Registry& registry);

  void set_dha(const std::string& ns, const std::string& name, const DhaGauges& g);
  void set_metric(const std::string& ns, const std::string& name, const std::string& type, double value, double target);
  void clear_metrics(const std::string& ns, const std::string& name);
  void count_decision(const std::string& ns, const std::string& name, const std::string& kind,
                      const std::string& reason);
  // Drops every per-DHA series (the DHA is gone or finalized).
  void forget(const std::string& ns, const std::string& name);

  // result: "success" | "requeue" | "error".
  void reconcile_finished(const std::string& result, double seconds);
  void set_leader(bool leader);
  // Sharded mode: whether this replica holds shard `shard`'s Lease (1) or gave it up (0).
  void set_shard_held(int shard, bool held);
  // leader_election_master_status{name=<Lease>}, as client-go's leader election exports it for
  // controller-runtime operators: 1 while this replica holds the Lease, 0 while it waits for it
  // or after it lost it. Only with leader election on (one series per Lease; a shard's Lease is
  // <id>-shard-<i>).
  void set_lease_held(const std::string& lease, bool held);
  // A write the leader fence refused (this replica no longer held the Lease): never sent.
  void count_fenced_write();
  // One query sent to the metric source. shape: "grouped" (one for every target of a namespace
  // and kind) | "target"; result: "ok" | "unavailable" | "empty" | "timeout" | "bad_response" |
  // "refused" | "error" | ....
  void count_metric_query(const std::string& shape, const std::string& result);
  // verb: get | list | patch | update | create; result: "ok" or the error reason.
  void count_api_request(const std::string& verb, const std::string& result);

 private:
  telemetry::GaugeFamily& current_;
  telemetry::GaugeFamily& desired_;
  telemetry::GaugeFamily& limited_;
  telemetry::GaugeFamily& frozen_;
  telemetry::GaugeFamily& metric_value_;
  telemetry::GaugeFamily& metric_target_;
  telemetry::CounterFamily& decisions_;
  telemetry::CounterFamily& reconciles_;
  telemetry::HistogramFamily& reconcile_duration_;
  telemetry::GaugeFamily& leader_;
  telemetry::GaugeFamily& shard_held_;
  telemetry::GaugeFamily& lease_held_;
  telemetry::CounterFamily& fenced_writes_;
  telemetry::CounterFamily& metric_queries_;
  telemetry::CounterFamily& api_requests_;
  std::mutex types_mu_;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> metric_types_;  // (ns, name) → types set
};

}  // namespace dha::op
