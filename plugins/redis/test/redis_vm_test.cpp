// The Redis adapter's queries against a real VictoriaMetrics holding series in redis_exporter's
// and kube-state-metrics' label sets (spotahome pods rfr-<failover>-N with
// redisfailovers-role=master|slave): read load from slaves only, write activity from the master.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "dha/testing/vm_query_suite.hpp"
#include "redis_adapter.hpp"

namespace dha::plugins {
namespace {

std::string pod_series(const std::string& ns, const std::string& app, const std::string& pod, const std::string& role,
                       double clients, double cpu_per_s, double offset_per_s, int64_t t1, int64_t t0) {
  const std::string id = "namespace=\"" + ns + "\",pod=\"" + pod + "\"";
  auto at = [](double v, int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; };
  std::string s;
  s += "kube_pod_labels{job=\"kube-state-metrics\"," + id + ",uid=\"u-" + pod +
       "\",label_app_kubernetes_io_component=\"redis\",label_app_kubernetes_io_instance=\"redis-" + app +
       "\",label_app_kubernetes_io_name=\"" + app + "\",label_app_kubernetes_io_part_of=\"redis-failover\"" +
       ",label_redisfailovers_role=\"" + role + "\"}" + at(1, t1);
  // redis_exporter sidecar: instance is the exporter's own address.
  const std::string exporter = "job=\"redis-" + app + "\",instance=\"10.1.0.1:9121\"," + id;
  s += "redis_connected_clients{" + exporter + "}" + at(clients, t1);
  s += "redis_master_repl_offset{" + exporter + "}" + at(5000, t0) + "redis_master_repl_offset{" + exporter + "}" +
       at(5000 + 60 * offset_per_s, t1);
  const std::string cadvisor =
      "container_cpu_usage_seconds_total{job=\"kubelet\"," + id + ",cpu=\"total\",container=\"";
  s += cadvisor + "redis\"}" + at(10, t0) + cadvisor + "redis\"}" + at(10 + 60 * cpu_per_s, t1);
  s += cadvisor + "redis-exporter\"}" + at(0, t0) + cadvisor + "redis-exporter\"}" + at(600, t1);
  return s;
}

class RedisQueriesOnVictoriaMetrics : public dha::testing::VmQuerySuite<RedisQueriesOnVictoriaMetrics> {
 public:
  static std::string series(int64_t t1, int64_t t0) {
    std::string d;
    d += pod_series("tenant-a", "cache", "rfr-redis-cache-0", "master", 400, 2.0, 50, t1, t0);
    d += pod_series("tenant-a", "cache", "rfr-redis-cache-1", "slave", 11, 0.05, 50, t1, t0);
    d += pod_series("tenant-a", "cache", "rfr-redis-cache-2", "slave", 13, 0.15, 50, t1, t0);
    d += pod_series("tenant-b", "cache", "rfr-redis-cache-1", "slave", 9000, 5.0, 5000, t1, t0);
    d += pod_series("tenant-a", "cache2", "rfr-redis-cache2-1", "slave", 8000, 5.0, 5000, t1, t0);
    // Sentinels are pods of the same instance but carry no redisfailovers-role.
    d += "kube_pod_labels{namespace=\"tenant-a\",pod=\"rfs-redis-cache-0\",label_app_kubernetes_io_instance=\"redis-"
         "cache\",label_app_kubernetes_io_component=\"sentinel\"} 1 " +
         std::to_string(t1) + "\n";
    return d;
  }
  static Target target() { return {"tenant-a", "cache", "redis-cache"}; }
  static sdk::Queries queries() {
    const sdk::json::Document config = sdk::json::parse("{}", "config");
    return RedisAdapter(sdk::Host(), config)
        .queries({"tenant-a",
                  "cache",
                  "redis-cache",
                  "apps.cozystack.io",
                  "Redis",
                  {"ReadConnections", "ReadCPUUtilization"}});
  }
};

TEST_F(RedisQueriesOnVictoriaMetrics, ReadConnectionsFromSlavesOnly) {
  EXPECT_DOUBLE_EQ(value(queries().driver.at("ReadConnections")), 11 + 13);
}

TEST_F(RedisQueriesOnVictoriaMetrics, ReadCpuFromTheRedisContainerOfSlaves) {
  EXPECT_NEAR(value(queries().driver.at("ReadCPUUtilization")), (0.05 + 0.15) * 1000, 1);
}

TEST_F(RedisQueriesOnVictoriaMetrics, WriteActivityFromTheMaster) {
  EXPECT_NEAR(value(queries().write_activity), 50, 0.5);
}

// The grouped query's answer for every Redis of the namespace at once, read by instance label.
std::map<std::string, double> grouped_values(dha::testing::VictoriaMetrics& vm, const std::string& query_template) {
  const auto doc =
      sdk::json::parse(vm.query(dha::testing::fill_query_placeholders(query_template, "tenant-a", "", "")), "answer");
  std::map<std::string, double> out;
  for (const auto& series : doc["data"]["result"].GetArray())
    out[series["metric"]["label_app_kubernetes_io_instance"].GetString()] = std::stod(series["value"][1].GetString());
  return out;
}

TEST_F(RedisQueriesOnVictoriaMetrics, TheGroupedQueriesReadEachInstanceAsItsOwnQueriesDo) {
  const auto q = queries();
  ASSERT_TRUE(q.grouped);
  EXPECT_EQ(q.grouped->by.at("label_app_kubernetes_io_instance"), "redis-${name}");
  const auto connections = grouped_values(vm(), q.grouped->driver.at("ReadConnections"));
  EXPECT_DOUBLE_EQ(connections.at("redis-cache"), value(q.driver.at("ReadConnections")));
  EXPECT_DOUBLE_EQ(connections.at("redis-cache2"), 8000);
  EXPECT_EQ(connections.size(), 2u) << "tenant-b's series are not in tenant-a's answer";
  const auto cpu = grouped_values(vm(), q.grouped->driver.at("ReadCPUUtilization"));
  EXPECT_NEAR(cpu.at("redis-cache"), value(q.driver.at("ReadCPUUtilization")), 1e-6);
}

}  // namespace
}  // namespace dha::plugins
