#include "redis_adapter.hpp"

#include <optional>
#include <string>

namespace dha::plugins {
namespace {

namespace json = sdk::json;

constexpr std::string_view kInstanceLabel = "label_app_kubernetes_io_instance";

// `* on(namespace,pod) group_left() kube_pod_labels{...}` restricted to one role of the target's
// pods; grouped: of every Redis in the namespace, the instance label carried over to aggregate by.
std::string role_join(std::string_view role, bool grouped) {
  const std::string label(kInstanceLabel);
  return " * on(namespace,pod) group_left(" + (grouped ? label : "") +
         R"() kube_pod_labels{namespace="${namespace}", )" + (grouped ? "" : label + R"(="redis-${name}", )") +
         R"(label_redisfailovers_role=")" + std::string(role) + "\"}";
}

std::string connections(bool grouped) {
  return "sum" + std::string(grouped ? " by (label_app_kubernetes_io_instance)" : "") +
         R"(( redis_connected_clients{namespace="${namespace}"})" + role_join("slave", grouped) + " )";
}

std::string cpu(bool grouped) {
  return "sum" + std::string(grouped ? " by (label_app_kubernetes_io_instance)" : "") +
         R"(( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="redis"}[5m]))" +
         role_join("slave", grouped) + " ) * 1000";
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
  sdk::Queries q;
  // No lag signal, so only the driver metrics are grouped.
  q.grouped = sdk::GroupedQueries{{{std::string(kInstanceLabel), "redis-${name}"}}, {}, "", ""};
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = connections(false);
      q.grouped->driver[type] = connections(true);
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] = cpu(false);
      q.grouped->driver[type] = cpu(true);
    }
  }
  q.lag_query = "";
  q.lag_unit = "seconds";
  // Never consulted while the lag query is empty; kept so the signal exists when a lag does.
  q.write_activity =
      R"(sum( rate(redis_master_repl_offset{namespace="${namespace}"}[5m]))" + role_join("master", false) + " )";
  return q;
}

}  // namespace dha::plugins
