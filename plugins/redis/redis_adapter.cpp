#include "redis_adapter.hpp"

#include <optional>
#include <string>

namespace dha::plugins {
namespace {

namespace json = sdk::json;

std::string role_join(std::string_view role) {
  return R"( * on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", label_app_kubernetes_io_instance="redis-${name}", label_redisfailovers_role=")" +
         std::string(role) + "\"}";
}

}  // namespace

RedisAdapter::RedisAdapter(const sdk::Host&, const json::Value& config)
    : default_preset_(json::string_or(config, "defaultResourcesPreset", "t1.nano", "redis configuration")) {}

std::vector<sdk::TargetKind> RedisAdapter::targets() const {
  return {{"apps.cozystack.io", "v1alpha1", "Redis", "redises", "builtin.merge-patch"}};
}

sdk::Topology RedisAdapter::topology(const sdk::ObjectView& target) const {
  sdk::Topology t = sdk::cozystack_application_topology(target, {"redis", "Redis", "redis", default_preset_});
  // The chart's WorkloadMonitor for the Redis pods (Sentinel has its own).
  t.health = sdk::HealthSource::workload_monitor(t.release_name + "-redis");
  return t;
}

sdk::Queries RedisAdapter::queries(const sdk::QueryRequest& request) const {
  const std::string slaves = role_join("slave");
  sdk::Queries q;
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = R"(sum( redis_connected_clients{namespace="${namespace}"})" + slaves + " )";
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] =
          R"(sum( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="redis"}[5m]))" + slaves +
          " ) * 1000";
    }
  }
  q.lag_query = "";
  q.lag_unit = "seconds";
  // Never consulted while the lag query is empty; kept so the signal exists when a lag does.
  q.write_activity = R"(sum( rate(redis_master_repl_offset{namespace="${namespace}"}[5m]))" + role_join("master") + " )";
  return q;
}

}  // namespace dha::plugins
