// The MongoDB adapter's queries against a real VictoriaMetrics holding mongodb_exporter
// (Percona, v2 "compatible" names) and kube-state-metrics series: secondaries are the members
// whose mongodb_mongod_replset_my_state is 2, the primary's is 1.
#include <gtest/gtest.h>

#include <string>

#include "dha/testing/vm_query_suite.hpp"
#include "mongodb_adapter.hpp"

namespace dha::plugins {
namespace {

std::string member_series(const std::string& ns, const std::string& app, int ordinal, int state, double connections,
                          double lag, double writes_per_s, double cpu_per_s, int64_t t1, int64_t t0) {
  const std::string pod = "mongodb-" + app + "-rs0-" + std::to_string(ordinal);
  const std::string id = "namespace=\"" + ns + "\",pod=\"" + pod + "\"";
  const std::string exporter =
      id + ",job=\"mongodb-" + app + "\",instance=\"10.3.0." + std::to_string(ordinal) + ":9216\",rs_nm=\"rs0\"";
  auto at = [](double v, int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; };
  std::string s;
  s += "kube_pod_labels{job=\"kube-state-metrics\"," + id + ",label_app_kubernetes_io_instance=\"mongodb-" + app +
       "\",label_app_kubernetes_io_component=\"mongod\",label_app_kubernetes_io_replset=\"rs0\"}" + at(1, t1);
  s += "mongodb_mongod_replset_my_state{" + exporter + ",set=\"rs0\"}" + at(state, t1);
  s += "mongodb_ss_connections{" + exporter + ",conn_type=\"current\"}" + at(connections, t1);
  s += "mongodb_ss_connections{" + exporter + ",conn_type=\"available\"}" + at(50000, t1);
  s += "mongodb_mongod_replset_member_replication_lag{" + exporter + ",name=\"" + pod +
       ":27017\",set=\"rs0\",state=\"" + (state == 1 ? "PRIMARY" : "SECONDARY") + "\"}" + at(lag, t1);
  for (const char* op : {"insert", "update", "delete", "query"}) {
    const double rate = std::string(op) == "query" ? 10000 : writes_per_s;
    const std::string series = "mongodb_ss_opcounters{" + exporter + ",legacy_op_type=\"" + op + "\"}";
    s += series + at(100, t0) + series + at(100 + 60 * rate, t1);
  }
  const std::string cadvisor =
      "container_cpu_usage_seconds_total{job=\"kubelet\"," + id + ",cpu=\"total\",container=\"";
  s += cadvisor + "mongod\"}" + at(5, t0) + cadvisor + "mongod\"}" + at(5 + 60 * cpu_per_s, t1);
  return s;
}

class MongodbQueriesOnVictoriaMetrics : public dha::testing::VmQuerySuite<MongodbQueriesOnVictoriaMetrics> {
 public:
  static std::string series(int64_t t1, int64_t t0) {
    std::string d;
    d += member_series("tenant-a", "db", 0, 1, 700, 0, 10, 3.0, t1, t0);
    d += member_series("tenant-a", "db", 1, 2, 17, 2, 0, 0.25, t1, t0);
    d += member_series("tenant-a", "db", 2, 2, 23, 6, 0, 0.05, t1, t0);
    d += member_series("tenant-b", "db", 1, 2, 9000, 900, 900, 9, t1, t0);
    d += member_series("tenant-a", "db2", 1, 2, 8000, 800, 800, 9, t1, t0);
    return d;
  }
  static Target target() { return {"tenant-a", "db", "mongodb-db"}; }
  static sdk::Queries queries() {
    const sdk::json::Document config = sdk::json::parse("{}", "config");
    return MongodbAdapter(sdk::Host(), config)
        .queries({"tenant-a",
                  "db",
                  "mongodb-db",
                  "apps.cozystack.io",
                  "MongoDB",
                  {"ReadConnections", "ReadCPUUtilization"}});
  }
};

TEST_F(MongodbQueriesOnVictoriaMetrics, ReadConnectionsFromSecondariesOnly) {
  EXPECT_DOUBLE_EQ(value(queries().driver.at("ReadConnections")), 17 + 23);
}

TEST_F(MongodbQueriesOnVictoriaMetrics, ReadCpuFromSecondaries) {
  EXPECT_NEAR(value(queries().driver.at("ReadCPUUtilization")), (0.25 + 0.05) * 1000, 1);
}

TEST_F(MongodbQueriesOnVictoriaMetrics, LagIsTheWorstMemberOfThisApplication) {
  EXPECT_DOUBLE_EQ(value(queries().lag_query), 6);
}

TEST_F(MongodbQueriesOnVictoriaMetrics, WriteActivityIsThePrimarysInsertsUpdatesDeletes) {
  EXPECT_NEAR(value(queries().write_activity), 3 * 10, 0.5);
}

}  // namespace
}  // namespace dha::plugins
