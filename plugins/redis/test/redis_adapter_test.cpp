#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "redis_adapter.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

RedisAdapter make() {
  const json::Document doc = json::parse("{}", "config");
  return RedisAdapter(sdk::Host(), doc);
}

std::string app(const std::string& spec) {
  return R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Redis", "metadata": {"name": "cache", "namespace": "t"}, "spec": )" +
         spec + "}";
}

std::string render(std::string q) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"${namespace}", "N"}, {"${name}", "A"}}) {
    for (size_t at = q.find(from); at != std::string::npos; at = q.find(from)) q.replace(at, from.size(), to);
  }
  return q;
}

TEST(RedisAdapter, Topology) {
  const struct {
    const char* spec;
    bool scalable;
    std::optional<int64_t> current;
    const char* preset;
  } cases[] = {
      {R"({"replicas": 3})", true, 3, "t1.nano"},
      {R"({"replicas": 2, "resourcesPreset": "t1.small"})", true, 2, "t1.small"},
      {R"({})", false, std::nullopt, "t1.nano"},
  };
  for (const auto& c : cases) {
    const json::Document doc = json::parse(app(c.spec), "target");
    const sdk::Topology t = make().topology(sdk::ObjectView(doc));
    EXPECT_EQ(t.scalable, c.scalable) << c.spec;
    EXPECT_EQ(t.current_replicas, c.current) << c.spec;
    EXPECT_EQ(t.resources_preset, c.preset) << c.spec;
    EXPECT_EQ(t.primary_count, 1);
    EXPECT_EQ(t.quorum_floor, 1);
    EXPECT_EQ(t.release_name, "redis-cache");
    // The WorkloadMonitor the chart renders, not the release name (the reference's defect).
    EXPECT_EQ(t.health, sdk::HealthSource::workload_monitor("redis-cache-redis"));
  }
  const json::Document doc = json::parse(app(R"({"replicas": 1})"), "target");
  EXPECT_EQ(make().topology(sdk::ObjectView(doc)).reason, "");
  const json::Document wrong = json::parse(
      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres", "metadata": {"name": "x"}})", "t");
  EXPECT_THROW((void)make().topology(sdk::ObjectView(wrong)), sdk::Error);
}

TEST(RedisAdapter, QueriesAreTheReferenceQueriesWithoutLag) {
  const sdk::Queries q = make().queries(
      sdk::QueryRequest{"N", "A", "redis-A", "apps.cozystack.io", "Redis", {"ReadConnections", "ReadCPUUtilization"}});
  const std::string slave_join =
      R"(* on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_app_kubernetes_io_instance="redis-A", label_redisfailovers_role="slave"})";
  EXPECT_EQ(render(q.driver.at("ReadConnections")),
            R"(sum( redis_connected_clients{namespace="N"} )" + slave_join + " )");
  EXPECT_EQ(render(q.driver.at("ReadCPUUtilization")),
            R"(sum( rate(container_cpu_usage_seconds_total{namespace="N", container="redis"}[5m]) )" + slave_join +
                " ) * 1000");
  EXPECT_EQ(q.lag_query, "") << "Redis has byte offsets only: no lag brake";
  EXPECT_EQ(
      render(q.write_activity),
      R"(sum( rate(redis_master_repl_offset{namespace="N"}[5m]) * on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_app_kubernetes_io_instance="redis-A", label_redisfailovers_role="master"} ))");
}

}  // namespace
}  // namespace dha::plugins
