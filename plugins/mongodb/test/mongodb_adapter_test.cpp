#include <gtest/gtest.h>

#include <map>
#include <string>

#include "mongodb_adapter.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

MongodbAdapter make(const char* config = "{}") {
  const json::Document doc = json::parse(config, "config");
  return MongodbAdapter(sdk::Host(), doc);
}

sdk::Topology topology_of(const MongodbAdapter& a, const std::string& spec) {
  const json::Document doc = json::parse(
      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "MongoDB", "metadata": {"name": "db"}, "spec": )" + spec +
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

TEST(MongodbAdapter, ReferenceReasonsAndTheSwitch) {
  const struct {
    const char* config;
    const char* spec;
    bool scalable;
    const char* reason;
  } cases[] = {
      {"{}", R"({"replicas": 3})", false, MongodbAdapter::kNotEnabledReason},
      {"{}", R"({"replicas": 3, "sharding": true})", false, MongodbAdapter::kShardedReason},
      {"{}", R"({"replicas": 3, "sharding": "true"})", false, MongodbAdapter::kNotEnabledReason},
      {R"({"allowScaling": true})", R"({"replicas": 3})", true, ""},
      {R"({"allowScaling": true})", R"({"replicas": 3, "sharding": true})", false, MongodbAdapter::kShardedReason},
      {R"({"allowScaling": true})", R"({"replicas": 3, "sharding": false})", true, ""},
      {R"({"allowScaling": true})", R"({})", false, "target has no replicas value"},
  };
  for (const auto& c : cases) {
    const sdk::Topology t = topology_of(make(c.config), c.spec);
    EXPECT_EQ(t.scalable, c.scalable) << c.config << c.spec;
    EXPECT_EQ(t.reason, c.reason) << c.config << c.spec;
    EXPECT_EQ(t.quorum_floor, 1);
    EXPECT_EQ(t.release_name, "mongodb-db");
    EXPECT_EQ(t.health, sdk::HealthSource::workload_monitor("mongodb-db"));
    EXPECT_EQ(t.resources_preset, "t1.small");
  }
}

TEST(MongodbAdapter, QueriesAreTheReferenceQueries) {
  const sdk::Queries q = make().queries(sdk::QueryRequest{
      "N", "A", "mongodb-A", "apps.cozystack.io", "MongoDB", {"ReadConnections", "ReadCPUUtilization"}});
  const std::string join =
      R"(* on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_app_kubernetes_io_instance="mongodb-A"})";
  const std::string secondary =
      R"(and on(namespace,pod) (mongodb_mongod_replset_my_state{namespace="N"} == 2) )" + join;
  EXPECT_EQ(render(q.driver.at("ReadConnections")),
            R"(sum( mongodb_ss_connections{namespace="N", conn_type="current"} )" + secondary + " )");
  EXPECT_EQ(render(q.driver.at("ReadCPUUtilization")),
            R"(sum( rate(container_cpu_usage_seconds_total{namespace="N", container="mongod"}[5m]) )" + secondary +
                " ) * 1000");
  EXPECT_EQ(render(q.lag_query), R"(max( mongodb_mongod_replset_member_replication_lag{namespace="N"} )" + join + " )");
  EXPECT_EQ(
      render(q.write_activity),
      R"(sum( rate(mongodb_ss_opcounters{namespace="N", legacy_op_type=~"insert|update|delete"}[5m]) and on(namespace,pod) (mongodb_mongod_replset_my_state{namespace="N"} == 1) )" +
          join + " )");
}

// The grouped queries read every MongoDB of the namespace at once, by the instance label the
// per-target queries pin the application with. The state filter is matched pod by pod before the
// join that carries the label over (`and` keeps only its left side's labels), so a member's state
// decides only its own series. Their only placeholder is ${namespace}.
TEST(MongodbAdapter, GroupedQueriesAreReadByTheInstanceLabel) {
  const sdk::Queries q = make().queries(sdk::QueryRequest{
      "N", "A", "mongodb-A", "apps.cozystack.io", "MongoDB", {"ReadConnections", "ReadCPUUtilization"}});
  ASSERT_TRUE(q.grouped);
  EXPECT_EQ(q.grouped->by,
            (std::map<std::string, std::string>{{"label_app_kubernetes_io_instance", "mongodb-${name}"}}));
  const std::string join =
      R"(* on(namespace,pod) group_left(label_app_kubernetes_io_instance) kube_pod_labels{namespace="N"})";
  auto in_state = [&](const std::string& x, int state) {
    return "(" + x + R"( and on(namespace,pod) (mongodb_mongod_replset_my_state{namespace="N"} == )" +
           std::to_string(state) + ")) " + join;
  };
  const std::string by = "sum by (label_app_kubernetes_io_instance)( ";
  EXPECT_EQ(render(q.grouped->driver.at("ReadConnections")),
            by + in_state(R"(mongodb_ss_connections{namespace="N", conn_type="current"})", 2) + " )");
  EXPECT_EQ(render(q.grouped->driver.at("ReadCPUUtilization")),
            by + in_state(R"(rate(container_cpu_usage_seconds_total{namespace="N", container="mongod"}[5m]))", 2) +
                " ) * 1000");
  EXPECT_EQ(
      render(q.grouped->lag_query),
      R"(max by (label_app_kubernetes_io_instance)( mongodb_mongod_replset_member_replication_lag{namespace="N"} )" +
          join + " )");
  EXPECT_EQ(
      render(q.grouped->write_activity),
      by + in_state(R"(rate(mongodb_ss_opcounters{namespace="N", legacy_op_type=~"insert|update|delete"}[5m]))", 1) +
          " )");
  for (const std::string& query : {q.grouped->driver.at("ReadConnections"), q.grouped->driver.at("ReadCPUUtilization"),
                                   q.grouped->lag_query, q.grouped->write_activity})
    EXPECT_EQ(query.find("${name}"), std::string::npos) << query;
}

}  // namespace
}  // namespace dha::plugins
