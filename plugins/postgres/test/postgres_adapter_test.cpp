#include <gtest/gtest.h>

#include <map>

#include <optional>
#include <string>

#include "postgres_adapter.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

PostgresAdapter make(const char* config = "{}") {
  const json::Document doc = json::parse(config, "config");
  return PostgresAdapter(sdk::Host(), doc);
}

sdk::Topology topology_of(const std::string& object) {
  const json::Document doc = json::parse(object, "target");
  return make().topology(sdk::ObjectView(doc));
}

std::string app(const std::string& spec) {
  return R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres", "metadata": {"name": "db", "namespace": "tenant-a"}, "spec": )" +
         spec + "}";
}
std::string cluster(const std::string& spec) {
  return R"({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster", "metadata": {"name": "pg", "namespace": "tenant-a"}, "spec": )" +
         spec + "}";
}

// Fills placeholders the way the host does for plain values, to compare with the reference's queries.
std::string render(std::string q) {
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"${namespace}", "N"}, {"${name}", "A"}}) {
    for (size_t at = q.find(from); at != std::string::npos; at = q.find(from)) q.replace(at, from.size(), to);
  }
  return q;
}

TEST(PostgresAdapter, TargetsTheApplicationAndTheCnpgCluster) {
  const auto targets = make().targets();
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_EQ(targets[0],
            (sdk::TargetKind{"apps.cozystack.io", "v1alpha1", "Postgres", "postgreses", "builtin.merge-patch"}));
  EXPECT_EQ(targets[1], (sdk::TargetKind{"postgresql.cnpg.io", "v1", "Cluster", "clusters", "builtin.scale"}));
}

struct TopologyCase {
  const char* name;
  std::string object;
  int64_t floor;
  bool scalable;
  const char* reason;
  std::optional<int64_t> current;
};

TEST(PostgresAdapter, ApplicationTopology) {
  const TopologyCase cases[] = {
      {"defaults", app(R"({"replicas": 3})"), 1, true, "", 3},
      {"maxSync 2 gives floor 3", app(R"({"replicas": 3, "quorum": {"maxSyncReplicas": 2}})"), 3, true, "", 3},
      {"float maxSync truncated", app(R"({"replicas": 3, "quorum": {"maxSyncReplicas": 1.9}})"), 2, true, "", 3},
      {"string maxSync ignored", app(R"({"replicas": 3, "quorum": {"maxSyncReplicas": "2"}})"), 1, true, "", 3},
      {"negative maxSync", app(R"({"replicas": 3, "quorum": {"maxSyncReplicas": -1}})"), 1, false,
       "invalid quorum.maxSyncReplicas -1 (must be >= 0)", 3},
      {"float replicas truncated", app(R"({"replicas": 4.7})"), 1, true, "", 4},
      {"missing replicas", app(R"({})"), 1, false, "target has no replicas value", std::nullopt},
      {"string replicas", app(R"({"replicas": "3"})"), 1, false, "target has no replicas value", std::nullopt},
  };
  for (const auto& c : cases) {
    const sdk::Topology t = topology_of(c.object);
    EXPECT_EQ(t.quorum_floor, c.floor) << c.name;
    EXPECT_EQ(t.scalable, c.scalable) << c.name;
    EXPECT_EQ(t.reason, c.reason) << c.name;
    EXPECT_EQ(t.current_replicas, c.current) << c.name;
    EXPECT_EQ(t.primary_count, 1) << c.name;
    EXPECT_EQ(t.replicas_path, "spec.replicas") << c.name;
    EXPECT_EQ(t.release_name, "postgres-db") << c.name;
    EXPECT_EQ(t.health, sdk::HealthSource::workload_monitor("postgres-db")) << c.name;
  }
}

TEST(PostgresAdapter, ApplicationResourcesAndPreset) {
  const struct {
    const char* spec;
    std::optional<sdk::Resources> resources;
    const char* preset;
  } cases[] = {
      {R"({"replicas": 2, "resources": {"cpu": "500m", "memory": "1Gi"}, "resourcesPreset": "t1.small"})",
       sdk::Resources{"500m", "1Gi"}, "t1.small"},
      {R"({"replicas": 2, "resources": {"cpu": 2, "memory": "1Gi"}})", std::nullopt, "t1.micro"},
      {R"({"replicas": 2, "resources": {"cpu": "", "memory": "1Gi"}})", std::nullopt, "t1.micro"},
      {R"({"replicas": 2, "resources": {"cpu": "1"}, "resourcesPreset": "s1.large"})", std::nullopt, "s1.large"},
      {R"({"replicas": 2, "resourcesPreset": ""})", std::nullopt, "t1.micro"},
  };
  for (const auto& c : cases) {
    const sdk::Topology t = topology_of(app(c.spec));
    EXPECT_EQ(t.resources, c.resources) << c.spec;
    EXPECT_EQ(t.resources_preset, c.preset) << c.spec;
  }
  const json::Document doc = json::parse(app(R"({"replicas": 2})"), "target");
  EXPECT_EQ(make(R"({"defaultResourcesPreset": "t1.nano"})").topology(sdk::ObjectView(doc)).resources_preset,
            "t1.nano");
}

TEST(PostgresAdapter, CnpgClusterTopology) {
  const TopologyCase cases[] = {
      {"instances", cluster(R"({"instances": 3})"), 1, true, "", 3},
      {"maxSyncReplicas", cluster(R"({"instances": 3, "minSyncReplicas": 1, "maxSyncReplicas": 2})"), 3, true, "", 3},
      {"synchronous.number wins when larger",
       cluster(R"({"instances": 4, "postgresql": {"synchronous": {"method": "any", "number": 3}}})"), 4, true, "", 4},
      {"negative maxSync", cluster(R"({"instances": 3, "maxSyncReplicas": -2})"), 1, false,
       "invalid maxSyncReplicas -2 (must be >= 0)", 3},
      {"no instances", cluster(R"({})"), 1, false, "target has no replicas value", std::nullopt},
  };
  for (const auto& c : cases) {
    const sdk::Topology t = topology_of(c.object);
    EXPECT_EQ(t.quorum_floor, c.floor) << c.name;
    EXPECT_EQ(t.scalable, c.scalable) << c.name;
    EXPECT_EQ(t.reason, c.reason) << c.name;
    EXPECT_EQ(t.current_replicas, c.current) << c.name;
    EXPECT_EQ(t.replicas_path, "spec.instances") << c.name;
    EXPECT_EQ(t.release_name, "pg") << c.name;
    EXPECT_EQ(t.health, sdk::HealthSource::target()) << c.name;
    EXPECT_EQ(t.resources_preset, "") << c.name;
  }
  const sdk::Topology t =
      topology_of(cluster(R"({"instances": 2, "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}})"));
  EXPECT_EQ(t.resources, (sdk::Resources{"1", "2Gi"}));
}

TEST(PostgresAdapter, RefusesTargetsItCannotRead) {
  const char* objects[] = {
      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Redis", "metadata": {"name": "x"}, "spec": {"replicas": 1}})",
      R"({"apiVersion": "other.io/v1", "kind": "Cluster", "metadata": {"name": "x"}, "spec": {"instances": 1}})",
      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres", "metadata": {}, "spec": {"replicas": 1}})",
  };
  for (const char* o : objects) {
    try {
      (void)topology_of(o);
      ADD_FAILURE() << o;
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT) << o;
    }
  }
}

TEST(PostgresAdapter, ApplicationQueriesAreTheReferenceQueries) {
  const sdk::Queries q = make().queries(sdk::QueryRequest{
      "N", "A", "postgres-A", "apps.cozystack.io", "Postgres", {"ReadConnections", "ReadCPUUtilization", "Bogus"}});
  const std::string join_replica =
      R"(* on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_apps_cozystack_io_application_name="A", label_apps_cozystack_io_application_kind="Postgres", label_cnpg_io_instance_role="replica"})";
  const std::string join_primary =
      R"(* on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_apps_cozystack_io_application_name="A", label_apps_cozystack_io_application_kind="Postgres", label_cnpg_io_instance_role="primary"})";
  EXPECT_EQ(q.driver.size(), 2u) << "an unsupported metric type is left out";
  EXPECT_EQ(render(q.driver.at("ReadConnections")),
            R"(sum( cnpg_backends_total{namespace="N", state="active"} )" + join_replica + " )");
  EXPECT_EQ(render(q.driver.at("ReadCPUUtilization")),
            R"(sum( rate(container_cpu_usage_seconds_total{namespace="N", container="postgres"}[5m]) )" + join_replica +
                " ) * 1000");
  EXPECT_EQ(render(q.lag_query), R"(max( cnpg_pg_replication_lag{namespace="N"} )" + join_replica + " )");
  EXPECT_EQ(q.lag_unit, "seconds");
  EXPECT_EQ(render(q.write_activity),
            R"(sum( rate(cnpg_collector_wal_bytes{namespace="N"}[5m]) )" + join_primary + " )");
}

// A new instance clones the primary: its ready time is estimated from the primary's database sizes.
TEST(PostgresAdapter, ReadyEstimateIsFromThePrimarysDatabaseSizes) {
  const sdk::Queries app =
      make().queries(sdk::QueryRequest{"N", "A", "postgres-A", "apps.cozystack.io", "Postgres", {"ReadConnections"}});
  EXPECT_EQ(
      render(app.ready_estimate),
      R"(88 + 11 * sum( cnpg_pg_database_size_bytes{namespace="N"} * on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_apps_cozystack_io_application_name="A", label_apps_cozystack_io_application_kind="Postgres", label_cnpg_io_instance_role="primary"} ) / 1073741824)");
  const sdk::Queries cluster =
      make().queries(sdk::QueryRequest{"N", "A", "A", "postgresql.cnpg.io", "Cluster", {"ReadConnections"}});
  EXPECT_EQ(
      render(cluster.ready_estimate),
      R"(88 + 11 * sum( cnpg_pg_database_size_bytes{namespace="N"} * on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_cnpg_io_cluster="A", label_cnpg_io_instance_role="primary"} ) / 1073741824)");
  ASSERT_TRUE(cluster.grouped);
  EXPECT_EQ(
      render(cluster.grouped_ready_estimate),
      R"(88 + 11 * sum by (label_cnpg_io_cluster)( cnpg_pg_database_size_bytes{namespace="N"} * on(namespace,pod) group_left(label_cnpg_io_cluster) kube_pod_labels{namespace="N", label_cnpg_io_instance_role="primary"} ) / 1073741824)");
  // It crosses the plugin boundary as the queries answer's "readyEstimate".
  EXPECT_EQ(sdk::Queries::from_json(sdk::json::parse(app.to_json(), "queries")).ready_estimate, app.ready_estimate);
}

TEST(PostgresAdapter, ClusterQueriesJoinOnTheCnpgClusterLabel) {
  const sdk::Queries q =
      make().queries(sdk::QueryRequest{"N", "A", "A", "postgresql.cnpg.io", "Cluster", {"ReadConnections"}});
  EXPECT_EQ(
      render(q.driver.at("ReadConnections")),
      R"(sum( cnpg_backends_total{namespace="N", state="active"} * on(namespace,pod) group_left() kube_pod_labels{namespace="N", label_cnpg_io_cluster="A", label_cnpg_io_instance_role="replica"} ))");
}

// The grouped queries keep every series the per-target ones aggregate (the same matchers but the
// target's name) and aggregate by the label that names the target, so that one answer per
// namespace holds every target's reading; their only placeholder is ${namespace}.
TEST(PostgresAdapter, GroupedQueriesAggregateByTheLabelThatNamesTheTarget) {
  const sdk::Queries app = make().queries(sdk::QueryRequest{
      "N", "A", "postgres-A", "apps.cozystack.io", "Postgres", {"ReadConnections", "ReadCPUUtilization"}});
  ASSERT_TRUE(app.grouped);
  const std::map<std::string, std::string> by_name{{"label_apps_cozystack_io_application_name", "${name}"}};
  EXPECT_EQ(app.grouped->by, by_name);
  const std::string join_replica =
      R"(* on(namespace,pod) group_left(label_apps_cozystack_io_application_name) kube_pod_labels{namespace="N", label_apps_cozystack_io_application_kind="Postgres", label_cnpg_io_instance_role="replica"})";
  EXPECT_EQ(
      render(app.grouped->driver.at("ReadConnections")),
      R"(sum by (label_apps_cozystack_io_application_name)( cnpg_backends_total{namespace="N", state="active"} )" +
          join_replica + " )");
  EXPECT_EQ(
      render(app.grouped->driver.at("ReadCPUUtilization")),
      R"(sum by (label_apps_cozystack_io_application_name)( rate(container_cpu_usage_seconds_total{namespace="N", container="postgres"}[5m]) )" +
          join_replica + " ) * 1000");
  EXPECT_EQ(render(app.grouped->lag_query),
            R"(max by (label_apps_cozystack_io_application_name)( cnpg_pg_replication_lag{namespace="N"} )" +
                join_replica + " )");
  EXPECT_NE(app.grouped->write_activity.find(R"(label_cnpg_io_instance_role="primary")"), std::string::npos);
  for (const auto& [type, query] : app.grouped->driver) {
    EXPECT_EQ(query.find("${name}"), std::string::npos) << type;
    EXPECT_EQ(query.find("${release}"), std::string::npos) << type;
  }

  const sdk::Queries cluster =
      make().queries(sdk::QueryRequest{"N", "A", "A", "postgresql.cnpg.io", "Cluster", {"ReadConnections"}});
  ASSERT_TRUE(cluster.grouped);
  EXPECT_EQ(cluster.grouped->by, (std::map<std::string, std::string>{{"label_cnpg_io_cluster", "${name}"}}));
  EXPECT_EQ(
      render(cluster.grouped->driver.at("ReadConnections")),
      R"(sum by (label_cnpg_io_cluster)( cnpg_backends_total{namespace="N", state="active"} * on(namespace,pod) group_left(label_cnpg_io_cluster) kube_pod_labels{namespace="N", label_cnpg_io_instance_role="replica"} ))");
}

TEST(PostgresAdapter, HealthFromWorkloadMonitorOrClusterStatus) {
  const PostgresAdapter a = make();
  const struct {
    const char* name;
    std::string target;
    const char* object;
    std::optional<sdk::Health> want;
  } cases[] = {
      {"workload monitor", app(R"({"replicas": 3})"), R"({"status": {"operational": true, "availableReplicas": 3}})",
       sdk::Health{true, 3}},
      {"workload monitor without status", app(R"({"replicas": 3})"), R"({})", std::nullopt},
      {"healthy cluster", cluster(R"({"instances": 3})"),
       R"({"status": {"phase": "Cluster in healthy state", "instances": 3, "readyInstances": 3}})",
       sdk::Health{true, 3}},
      {"cluster scaling up", cluster(R"({"instances": 4})"),
       R"({"status": {"phase": "Creating a new replica", "instances": 4, "readyInstances": 3}})", sdk::Health{true, 3}},
      {"cluster failing over", cluster(R"({"instances": 3})"),
       R"({"status": {"phase": "Failing over", "instances": 3, "readyInstances": 2}})", sdk::Health{false, 2}},
      {"cluster with nothing ready", cluster(R"({"instances": 3})"),
       R"({"status": {"phase": "Setting up primary", "instances": 1}})", sdk::Health{false, 0}},
      {"cluster not observed yet", cluster(R"({"instances": 3})"), R"({"metadata": {}})", std::nullopt},
      {"cluster empty status", cluster(R"({"instances": 3})"), R"({"status": {}})", std::nullopt},
  };
  for (const auto& c : cases) {
    const json::Document target = json::parse(c.target, "target");
    const json::Document object = json::parse(c.object, "object");
    const sdk::HealthRequest request{&target, &object};
    if (c.want) {
      EXPECT_EQ(a.health(request), *c.want) << c.name;
    } else {
      try {
        (void)a.health(request);
        ADD_FAILURE() << c.name;
      } catch (const sdk::Error& e) {
        EXPECT_EQ(e.status(), DHA_FAILED_PRECONDITION) << c.name;
      }
    }
  }
}

}  // namespace
}  // namespace dha::plugins
