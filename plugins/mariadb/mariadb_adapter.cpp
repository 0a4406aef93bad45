#include "mariadb_adapter.hpp"

#include <optional>
#include <string>

namespace dha::plugins {
namespace {

namespace json = sdk::json;

// One mysqld_exporter Deployment (job R-metrics) probes every instance; instances are told apart
// by the `target` label, and replicas are the targets that export slave status.
constexpr std::string_view kJob = R"(namespace="${namespace}", job="mariadb-${name}-metrics")";

std::string selector(std::string_view metric) { return std::string(metric) + "{" + std::string(kJob) + "}"; }

}  // namespace

MariadbAdapter::MariadbAdapter(const sdk::Host&, const json::Value& config)
    : allow_scaling_(json::bool_or(config, "allowScaling", false, "mariadb configuration")),
      default_preset_(json::string_or(config, "defaultResourcesPreset", "t1.nano", "mariadb configuration")) {}

std::vector<sdk::TargetKind> MariadbAdapter::targets() const {
  return {{"apps.cozystack.io", "v1alpha1", "MariaDB", "mariadbs", "builtin.merge-patch"}};
}

sdk::Topology MariadbAdapter::topology(const sdk::ObjectView& target) const {
  sdk::Topology t = sdk::cozystack_application_topology(target, {"mariadb", "MariaDB", "mariadb", default_preset_});
  if (!allow_scaling_) {
    t.scalable = false;
    t.reason = kNotScalableReason;
  }
  return t;
}

sdk::Queries MariadbAdapter::queries(const sdk::QueryRequest& request) const {
  const std::string replica_filter = " and on(target) " + selector("mysql_slave_status_slave_io_running");
  sdk::Queries q;
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = "sum( " + selector("mysql_global_status_threads_connected") + replica_filter + " )";
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] =
          R"(sum( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="mariadb"}[5m]) * on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", label_app_kubernetes_io_instance="mariadb-${name}", label_k8s_mariadb_com_role="replica"} ) * 1000)";
    }
  }
  q.lag_query = "max( " + selector("mysql_slave_status_seconds_behind_master") + " )";
  q.lag_unit = "seconds";
  q.write_activity = "sum( rate(" + selector("mysql_global_status_queries") + "[5m]) unless on(target) " +
                     selector("mysql_slave_status_slave_io_running") + " )";
  return q;
}

}  // namespace dha::plugins
