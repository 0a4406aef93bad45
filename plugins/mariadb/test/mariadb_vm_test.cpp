// The MariaDB adapter's queries against a real VictoriaMetrics holding mysqld_exporter series as
// mariadb-operator scrapes them: one exporter job R-metrics, instances told apart by `target`,
// replicas being the targets that export slave status.
#include <gtest/gtest.h>

#include <string>

#include "dha/testing/vm_query_suite.hpp"
#include "mariadb_adapter.hpp"

namespace dha::plugins {
namespace {

std::string instance_series(const std::string& ns, const std::string& app, int ordinal, bool replica, double threads,
                            double lag, double queries_per_s, double cpu_per_s, int64_t t1, int64_t t0) {
  const std::string pod = "mariadb-" + app + "-" + std::to_string(ordinal);
  const std::string target = pod + ".mariadb-" + app + "-internal." + ns + ".svc.cluster.local:3306";
  // The exporter Deployment's own pod is what the scrape's pod label names.
  const std::string exporter = "namespace=\"" + ns + "\",job=\"mariadb-" + app + "-metrics\",pod=\"mariadb-" + app +
                               "-metrics-7d9f\",instance=\"10.2.0.5:9104\",target=\"" + target + "\"";
  auto at = [](double v, int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; };
  std::string s;
  s += "mysql_global_status_threads_connected{" + exporter + "}" + at(threads, t1);
  s += "mysql_global_status_queries{" + exporter + "}" + at(1e6, t0) + "mysql_global_status_queries{" + exporter + "}" +
       at(1e6 + 60 * queries_per_s, t1);
  if (replica) {
    s += "mysql_slave_status_slave_io_running{" + exporter +
         ",channel_name=\"\",connection_name=\"\",master_host=\"mariadb-" + app + "-0\",master_uuid=\"\"}" + at(1, t1);
    s += "mysql_slave_status_seconds_behind_master{" + exporter +
         ",channel_name=\"\",connection_name=\"\",master_host=\"mariadb-" + app + "-0\",master_uuid=\"\"}" +
         at(lag, t1);
  }
  const std::string id = "namespace=\"" + ns + "\",pod=\"" + pod + "\"";
  s += "kube_pod_labels{job=\"kube-state-metrics\"," + id + ",label_app_kubernetes_io_instance=\"mariadb-" + app +
       "\",label_app_kubernetes_io_name=\"mariadb\",label_k8s_mariadb_com_role=\"" + (replica ? "replica" : "primary") +
       "\"}" + at(1, t1);
  const std::string cadvisor =
      "container_cpu_usage_seconds_total{job=\"kubelet\"," + id + ",cpu=\"total\",container=\"";
  s += cadvisor + "mariadb\"}" + at(1, t0) + cadvisor + "mariadb\"}" + at(1 + 60 * cpu_per_s, t1);
  return s;
}

class MariadbQueriesOnVictoriaMetrics : public dha::testing::VmQuerySuite<MariadbQueriesOnVictoriaMetrics> {
 public:
  static std::string series(int64_t t1, int64_t t0) {
    std::string d;
    d += instance_series("tenant-a", "db", 0, false, 300, 0, 40, 2.0, t1, t0);
    d += instance_series("tenant-a", "db", 1, true, 21, 4, 5, 0.3, t1, t0);
    d += instance_series("tenant-a", "db", 2, true, 9, 11, 5, 0.1, t1, t0);
    d += instance_series("tenant-b", "db", 1, true, 9000, 900, 900, 9, t1, t0);
    d += instance_series("tenant-a", "db2", 1, true, 8000, 800, 800, 9, t1, t0);
    return d;
  }
  static Target target() { return {"tenant-a", "db", "mariadb-db"}; }
  static sdk::Queries queries() {
    const sdk::json::Document config = sdk::json::parse("{}", "config");
    return MariadbAdapter(sdk::Host(), config)
        .queries({"tenant-a",
                  "db",
                  "mariadb-db",
                  "apps.cozystack.io",
                  "MariaDB",
                  {"ReadConnections", "ReadCPUUtilization"}});
  }
};

TEST_F(MariadbQueriesOnVictoriaMetrics, ReadConnectionsFromTargetsWithSlaveStatus) {
  EXPECT_DOUBLE_EQ(value(queries().driver.at("ReadConnections")), 21 + 9);
}

TEST_F(MariadbQueriesOnVictoriaMetrics, ReadCpuFromReplicaPods) {
  EXPECT_NEAR(value(queries().driver.at("ReadCPUUtilization")), (0.3 + 0.1) * 1000, 1);
}

TEST_F(MariadbQueriesOnVictoriaMetrics, LagIsTheWorstReplica) { EXPECT_DOUBLE_EQ(value(queries().lag_query), 11); }

TEST_F(MariadbQueriesOnVictoriaMetrics, WriteActivityIsThePrimarysQueryRate) {
  EXPECT_NEAR(value(queries().write_activity), 40, 0.5);
}

}  // namespace
}  // namespace dha::plugins
