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

// Grouped: every MariaDB's exporter series of the namespace, aggregated by the job that names the
// database. The slave-status filter matches on(job, target), so a target address one database's
// job reports never vouches for another database's instance.
std::string all_jobs(std::string_view metric) { return std::string(metric) + R"({namespace="${namespace}"})"; }
std::string replica_of_same_job() { return " on(job, target) " + all_jobs("mysql_slave_status_slave_io_running"); }

// The CPU reading comes from cAdvisor and kube_pod_labels, which know the database by its
// instance label (mariadb-<name>), not by the exporter job: grouped, it is summed by that label
// and given the job the database's exporter has, so every grouped answer is read by one label.
std::string grouped_cpu() {
  return R"q(label_replace( sum by (label_app_kubernetes_io_instance)( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="mariadb"}[5m]) * on(namespace,pod) group_left(label_app_kubernetes_io_instance) kube_pod_labels{namespace="${namespace}", label_k8s_mariadb_com_role="replica"} ) * 1000, "job", "$1-metrics", "label_app_kubernetes_io_instance", "(.+)" ))q";
}

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
  q.grouped = sdk::GroupedQueries{
      {{"job", "mariadb-${name}-metrics"}},
      {},
      "max by (job)( " + all_jobs("mysql_slave_status_seconds_behind_master") + " )",
      "sum by (job)( rate(" + all_jobs("mysql_global_status_queries") + "[5m]) unless" + replica_of_same_job() + " )"};
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = "sum( " + selector("mysql_global_status_threads_connected") + replica_filter + " )";
      q.grouped->driver[type] =
          "sum by (job)( " + all_jobs("mysql_global_status_threads_connected") + " and" + replica_of_same_job() + " )";
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] =
          R"(sum( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="mariadb"}[5m]) * on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", label_app_kubernetes_io_instance="mariadb-${name}", label_k8s_mariadb_com_role="replica"} ) * 1000)";
      q.grouped->driver[type] = grouped_cpu();
    }
  }
  q.lag_query = "max( " + selector("mysql_slave_status_seconds_behind_master") + " )";
  q.lag_unit = "seconds";
  q.write_activity = "sum( rate(" + selector("mysql_global_status_queries") + "[5m]) unless on(target) " +
                     selector("mysql_slave_status_slave_io_running") + " )";
  return q;
}

}  // namespace dha::plugins
