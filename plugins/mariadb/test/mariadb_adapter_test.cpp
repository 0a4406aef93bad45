#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "mariadb_adapter.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

MariadbAdapter make(const char* config = "{}") {
  const json::Document doc = json::parse(config, "config");
  return MariadbAdapter(sdk::Host(), doc);
}

sdk::Topology topology_of(const MariadbAdapter& a, const std::string& spec) {
  const json::Document doc = json::parse(
      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "MariaDB", "metadata": {"name": "db"}, "spec": )" + spec +
          "}",
      "target");
  return a.topology(sdk::ObjectView(doc));
}

std::string render(std::string q) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"${namespace}", "N"}, {"${name}", "A"}}) {
    for (size_t at = q.find(from); at != std::string::npos; at = q.find(from)) q.replace(at, from.size(), to);
  }
  return q;
}

TEST(MariadbAdapter, NotScalableUnlessConfigured) {
  const struct {
    const char* config;
    const char* spec;
    bool scalable;
    const char* reason;
  } cases[] = {
      {"{}", R"({"replicas": 2})", false, MariadbAdapter::kNotScalableReason},
      {R"({"allowScaling": false})", R"({"replicas": 2})", false, MariadbAdapter::kNotScalableReason},
      {R"({"allowScaling": true})", R"({"replicas": 2})", true, ""},
      {R"({"allowScaling": true})", R"({})", false, "target has no replicas value"},
      {R"({"allowScaling": "true"})", R"({"replicas": 2})", false, nullptr},  // refused config: checked below
  };
  for (const auto& c : cases) {
    if (c.reason == nullptr) {
      EXPECT_THROW((void)make(c.config), sdk::Error) << "a string is not a boolean";
      continue;
    }
    const sdk::Topology t = topology_of(make(c.config), c.spec);
    EXPECT_EQ(t.scalable, c.scalable) << c.config << c.spec;
    EXPECT_EQ(t.reason, c.reason) << c.config << c.spec;
    EXPECT_EQ(t.release_name, "mariadb-db");
    EXPECT_EQ(t.health, sdk::HealthSource::workload_monitor("mariadb-db"));
    EXPECT_EQ(t.quorum_floor, 1);
    EXPECT_EQ(t.resources_preset, "t1.nano");
  }
}

TEST(MariadbAdapter, QueriesAreTheReferenceQueries) {
  const sdk::Queries q = make().queries(sdk::QueryRequest{
      "N", "A", "mariadb-A", "apps.cozystack.io", "MariaDB", {"ReadConnections", "ReadCPUUtilization"}});
  const std::string filter =
      R"(and on(target) mysql_slave_status_slave_io_running{namespace="N", job="mariadb-A-metrics"})";
  EXPECT_EQ(render(q.driver.at("ReadConnections")),
            R"(sum( mysql_global_status_threads_connected{namespace="N", job="mariadb-A-metrics"} )" + filter + " )");
  EXPECT_EQ(
      render(q.driver.at("ReadCPUUtilization")),
      R"(sum( rate(container_cpu_usage_seconds_total{namespace="N", container="mariadb"}[5m]) * on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_app_kubernetes_io_instance="mariadb-A", label_k8s_mariadb_com_role="replica"} ) * 1000)");
  EXPECT_EQ(render(q.lag_query),
            R"(max( mysql_slave_status_seconds_behind_master{namespace="N", job="mariadb-A-metrics"} ))");
  EXPECT_EQ(q.lag_unit, "seconds");
  EXPECT_EQ(
      render(q.write_activity),
      R"(sum( rate(mysql_global_status_queries{namespace="N", job="mariadb-A-metrics"}[5m]) unless on(target) mysql_slave_status_slave_io_running{namespace="N", job="mariadb-A-metrics"} ))");
}

// The grouped queries read every MariaDB of the namespace at once and are all read by the job
// that names the database: the exporter's series carry it, the CPU reading is given it from the
// instance label; the slave-status filters match on(job, target) so one database's addresses
// never decide another's replicas. Their only placeholder is ${namespace}.
TEST(MariadbAdapter, GroupedQueriesAreReadByTheDatabasesJob) {
  const sdk::Queries q = make().queries(sdk::QueryRequest{
      "N", "A", "mariadb-A", "apps.cozystack.io", "MariaDB", {"ReadConnections", "ReadCPUUtilization"}});
  ASSERT_TRUE(q.grouped);
  EXPECT_EQ(q.grouped->by, (std::map<std::string, std::string>{{"job", "mariadb-${name}-metrics"}}));
  const std::string filter = R"(on(job, target) mysql_slave_status_slave_io_running{namespace="N"})";
  EXPECT_EQ(render(q.grouped->driver.at("ReadConnections")),
            R"(sum by (job)( mysql_global_status_threads_connected{namespace="N"} and )" + filter + " )");
  EXPECT_EQ(
      render(q.grouped->driver.at("ReadCPUUtilization")),
      R"q(label_replace( sum by (label_app_kubernetes_io_instance)( rate(container_cpu_usage_seconds_total{namespace="N", container="mariadb"}[5m]) * on(namespace,pod) group_left(label_app_kubernetes_io_instance) kube_pod_labels{namespace="N", label_k8s_mariadb_com_role="replica"} ) * 1000, "job", "$1-metrics", "label_app_kubernetes_io_instance", "(.+)" ))q");
  EXPECT_EQ(render(q.grouped->lag_query), R"(max by (job)( mysql_slave_status_seconds_behind_master{namespace="N"} ))");
  EXPECT_EQ(render(q.grouped->write_activity),
            R"(sum by (job)( rate(mysql_global_status_queries{namespace="N"}[5m]) unless )" + filter + " )");
  for (const std::string& query : {q.grouped->driver.at("ReadConnections"), q.grouped->driver.at("ReadCPUUtilization"),
                                   q.grouped->lag_query, q.grouped->write_activity})
    EXPECT_EQ(query.find("${name}"), std::string::npos) << query;
}

}  // namespace
}  // namespace dha::plugins
