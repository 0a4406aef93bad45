#include "host/self_metrics.hpp"

namespace dha::op {

SelfMetrics::SelfMetrics(telemetry::Registry& r)
    : current_(r.gauge("db_autoscaler_current_replicas", "Observed total instance count of the DHA's target.",
                       {"namespace", "name"})),
      desired_(r.gauge("db_autoscaler_desired_replicas", "The decision's instance count.", {"namespace", "name"})),
      limited_(r.gauge("db_autoscaler_scaling_limited", "1 while clamped by a limit or in ownership conflict.",
                       {"namespace", "name"})),
      frozen_(r.gauge("db_autoscaler_frozen", "1 while AbleToScale is False (backoff hold included).",
                      {"namespace", "name"})),
      metric_value_(r.gauge("db_autoscaler_metric_value",
                            "Per-read-replica average of the metric (connections; CPU in millicores).",
                            {"namespace", "name", "type"})),
      metric_target_(r.gauge("db_autoscaler_metric_target", "The DHA's target for the metric, same unit.",
                             {"namespace", "name", "type"})),
      decisions_(r.counter("db_autoscaler_decisions_total", "Decisions by kind and reason.",
                           {"namespace", "name", "kind", "reason"})),
      reconciles_(r.counter("db_autoscaler_reconcile_total", "Reconciles finished by this replica.", {"result"})),
      reconcile_duration_(r.histogram("db_autoscaler_reconcile_duration_seconds", "Reconcile latency.", {})),
      leader_(r.gauge("db_autoscaler_leader", "1 on the replica holding the leader Lease, else 0.")),
      shard_held_(r.gauge("db_autoscaler_shard_held",
                          "Sharded mode: 1 for each shard whose Lease this replica holds, 0 once it gave it up.",
                          {"shard"})),
      // client-go's name and help text, so dashboards written for controller-runtime read it.
      lease_held_(r.gauge("leader_election_master_status",
                          "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 "
                          "indicates master. 'name' is the string used to identify the lease. Please make sure to "
                          "group by name.",
                          {"name"})),
      fenced_writes_(r.counter("db_autoscaler_fenced_writes_total",
                               "Writes refused unsent because this replica no longer held the leader Lease.")),
      metric_queries_(r.counter("db_autoscaler_metric_queries_total",
                                "Queries sent to the metric source, by shape (grouped or target) and result.",
                                {"shape", "result"})),
      api_requests_(r.counter("db_autoscaler_api_requests_total",
                              "Kubernetes API requests of the reconciler by verb and result.", {"verb", "result"})) {
  leader_.with({})->set(0);
  fenced_writes_.with({});
}

void SelfMetrics::set_dha(const std::string& ns, const std::string& name, const DhaGauges& g) {
  current_.with({ns, name})->set(g.current);
  desired_.with({ns, name})->set(g.desired);
  limited_.with({ns, name})->set(g.limited ? 1 : 0);
  frozen_.with({ns, name})->set(g.frozen ? 1 : 0);
}

void SelfMetrics::set_metric(const std::string& ns, const std::string& name, const std::string& type, double value,
                             double target) {
  {
    std::lock_guard lock(types_mu_);
    metric_types_[{ns, name}].insert(type);
  }
  metric_value_.with({ns, name, type})->set(value);
  metric_target_.with({ns, name, type})->set(target);
}

// Removes exactly the series set_metric created for this DHA: remove_matching() scans every
// series of the family, which made each reconcile O(DHAs) (a visible share of a 10 000-DHA
// profile, bench/scale).
void SelfMetrics::clear_metrics(const std::string& ns, const std::string& name) {
  std::set<std::string> types;
  {
    std::lock_guard lock(types_mu_);
    auto it = metric_types_.find({ns, name});
    if (it == metric_types_.end()) return;
    types = std::move(it->second);
    metric_types_.erase(it);
  }
  for (const auto& type : types) {
    metric_value_.remove({ns, name, type});
    metric_target_.remove({ns, name, type});
  }
}

void SelfMetrics::count_decision(const std::string& ns, const std::string& name, const std::string& kind,
                                 const std::string& reason) {
  decisions_.with({ns, name, kind, reason})->inc();
}

void SelfMetrics::forget(const std::string& ns, const std::string& name) {
  clear_metrics(ns, name);
  for (auto* family : {&current_, &desired_, &limited_, &frozen_}) family->remove({ns, name});
  // Rare (the DHA is gone): the decision series' kinds and reasons are not tracked, so scan.
  decisions_.remove_matching({{"namespace", ns}, {"name", name}});
}

void SelfMetrics::reconcile_finished(const std::string& result, double seconds) {
  reconciles_.with({result})->inc();
  reconcile_duration_.with({})->observe(seconds);
}

void SelfMetrics::set_leader(bool leader) { leader_.with({})->set(leader ? 1 : 0); }

void SelfMetrics::set_lease_held(const std::string& lease, bool held) { lease_held_.with({lease})->set(held ? 1 : 0); }

void SelfMetrics::set_shard_held(int shard, bool held) { shard_held_.with({std::to_string(shard)})->set(held ? 1 : 0); }

void SelfMetrics::count_fenced_write() { fenced_writes_.with({})->inc(); }

void SelfMetrics::count_metric_query(const std::string& shape, const std::string& result) {
  metric_queries_.with({shape, result})->inc();
}

void SelfMetrics::count_api_request(const std::string& verb, const std::string& result) {
  api_requests_.with({verb, result})->inc();
}

}  // namespace dha::op
