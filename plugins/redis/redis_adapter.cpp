#include "redis_adapter.hpp"

#include <optional>
#include <string>

namespace dha::plugins {
namespace {

namespace json = sdk::json;
namespace values = sdk::values;

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
  const std::string name(target.name());
  if (name.empty()) throw sdk::Error(DHA_INVALID_ARGUMENT, "redis: the target has no metadata.name");
  if (target.kind() != "Redis" || !target.api_version().starts_with("apps.cozystack.io/")) {
    throw sdk::Error(DHA_INVALID_ARGUMENT, "redis: cannot read a target of kind " + std::string(target.kind()) +
                                               " (" + std::string(target.api_version()) + ")");
  }
  const json::Value& spec = target.spec();
  sdk::Topology t;
  t.primary_count = 1;
  t.quorum_floor = 1;
  t.replicas_path = "spec.replicas";
  t.current_replicas = values::read_replicas(target.json(), t.replicas_path);
  t.release_name = "redis-" + name;
  t.health = sdk::HealthSource::workload_monitor(t.release_name + "-redis");
  t.resources = values::read_resources(spec);
  t.resources_preset = std::string(values::read_string(spec, "resourcesPreset", ""));
  if (t.resources_preset.empty()) t.resources_preset = default_preset_;
  if (!t.current_replicas) {
    t.scalable = false;
    t.reason = "target has no replicas value";
  }
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
