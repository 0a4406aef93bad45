// The Postgres adapter's queries against a real VictoriaMetrics holding series in the label sets
// CloudNativePG's exporter, cAdvisor and kube-state-metrics really use: each query must see the
// target's replicas only — never the primary (for read load), another namespace, or another
// application in the same namespace.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "dha/testing/vm_query_suite.hpp"
#include "postgres_adapter.hpp"

namespace dha::plugins {
namespace {

struct Pod {
  std::string ns, app, pod, role;
};

// One CNPG pod's series: kube_pod_labels, CNPG exporter, cAdvisor. `scale` makes a pod's load
// distinctive so a leak shows up in the sum.
// `wal_per_s`: the WAL the pod generates (pg_stat_wal's running total, which the exporter types a
// gauge); `unsent`: the WAL not yet sent to its standby at t0 and t1 (a gauge, up and down).
std::string pod_series(const Pod& p, double backends_active, double lag, double cpu_per_s, double wal_per_s, int64_t t1,
                       int64_t t0, std::pair<double, double> unsent = {0, 0}) {
  const std::string id = "namespace=\"" + p.ns + "\",pod=\"" + p.pod + "\"";
  const std::string cluster = "postgres-" + p.app;
  auto at = [](double v, int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; };
  std::string s;
  s += "kube_pod_labels{job=\"kube-state-metrics\"," + id + ",uid=\"uid-" + p.pod +
       "\",label_apps_cozystack_io_application_name=\"" + p.app +
       "\",label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_cluster=\"" + cluster +
       "\",label_cnpg_io_instance_role=\"" + p.role + "\",label_role=\"" + p.role + "\"}" + at(1, t1);
  // CNPG reports backends per (datname, usename, application_name, backend_type, state).
  s +=
      "cnpg_backends_total{" + id + ",job=\"" + cluster +
      "\",datname=\"app\",usename=\"app\",application_name=\"psql\",backend_type=\"client backend\",state=\"active\"}" +
      at(backends_active - 1, t1);
  s += "cnpg_backends_total{" + id + ",job=\"" + cluster +
       "\",datname=\"postgres\",usename=\"postgres\",application_name=\"\",backend_type=\"client "
       "backend\",state=\"active\"}" +
       at(1, t1);
  s += "cnpg_backends_total{" + id + ",job=\"" + cluster +
       "\",datname=\"app\",usename=\"app\",application_name=\"pool\",backend_type=\"client backend\",state=\"idle\"}" +
       at(500, t1);
  s += "cnpg_pg_replication_lag{" + id + ",job=\"" + cluster + "\"}" + at(lag, t1);
  const std::string cadvisor = "container_cpu_usage_seconds_total{job=\"kubelet\",metrics_path=\"/metrics/cadvisor\"," +
                               id +
                               ",cpu=\"total\",image=\"ghcr.io/cloudnative-pg/postgresql:16\",name=\"x\",container=\"";
  s += cadvisor + "postgres\"}" + at(1000, t0) + cadvisor + "postgres\"}" + at(1000 + 60 * cpu_per_s, t1);
  s += cadvisor + "bootstrap-controller\"}" + at(0, t0) + cadvisor + "bootstrap-controller\"}" + at(6000, t1);
  const std::string sent = "cnpg_pg_stat_replication_sent_diff_bytes{" + id + ",job=\"" + cluster +
                           "\",application_name=\"standby\",client_addr=\"10.0.0.9\",usename=\"streaming_replica\"}";
  s += sent + at(unsent.first, t0) + sent + at(unsent.second, t1);
  const std::string wal =
      "cnpg_collector_wal_bytes{" + id + ",job=\"" + cluster + "\",stats_reset=\"2026-01-01T00:00:00Z\"}";
  s += wal + at(5e9, t0) + wal + at(5e9 + 60 * wal_per_s, t1);
  return s;
}

// CloudNativePG's default pg_database query: every instance reports the size of each database.
std::string size_series(const Pod& p, double app_gib, int64_t t1) {
  const std::string id = "namespace=\"" + p.ns + "\",pod=\"" + p.pod + "\",job=\"postgres-" + p.app + "\"";
  const auto at = [&](double v) { return " " + std::to_string(v) + " " + std::to_string(t1) + "\n"; };
  return "cnpg_pg_database_size_bytes{" + id + ",datname=\"app\"}" + at(app_gib * 1073741824.0) +
         "cnpg_pg_database_size_bytes{" + id + ",datname=\"postgres\"}" + at(0.25 * 1073741824.0);
}

class PostgresQueriesOnVictoriaMetrics : public dha::testing::VmQuerySuite<PostgresQueriesOnVictoriaMetrics> {
 public:
  static std::string series(int64_t t1, int64_t t0) {
    std::string data;
    // Database sizes: 1.25 GiB on the target's primary (a replica still catching up reports less).
    data += size_series({"tenant-a", "db", "postgres-db-1", "primary"}, 1.0, t1);
    data += size_series({"tenant-a", "db", "postgres-db-2", "replica"}, 0.5, t1);
    data += size_series({"tenant-b", "db", "postgres-db-1", "primary"}, 40, t1);
    data += size_series({"tenant-a", "db2", "postgres-db2-1", "primary"}, 20, t1);
    // The target: tenant-a/db, primary db-1, replicas db-2 and db-3.
    data += pod_series({"tenant-a", "db", "postgres-db-1", "primary"}, 900, 0, 3.0, 100, t1, t0);
    data += pod_series({"tenant-a", "db", "postgres-db-2", "replica"}, 30, 3, 0.1, 7000, t1, t0);
    data += pod_series({"tenant-a", "db", "postgres-db-3", "replica"}, 12, 7, 0.2, 9000, t1, t0);
    // Same names in another tenant, and another application in the same tenant.
    data += pod_series({"tenant-b", "db", "postgres-db-1", "primary"}, 5000, 0, 9.0, 50000, t1, t0);
    data += pod_series({"tenant-b", "db", "postgres-db-2", "replica"}, 5000, 900, 9.0, 50000, t1, t0);
    data += pod_series({"tenant-a", "db2", "postgres-db2-1", "primary"}, 7000, 0, 9.0, 70000, t1, t0);
    data += pod_series({"tenant-a", "db2", "postgres-db2-2", "replica"}, 7000, 800, 9.0, 70000, t1, t0);
    // A primary that writes nothing while the WAL it had not yet sent to its standby drains
    // (8 MB at t0, 2 MB at t1): the gauge falls, which a rate() reads as a counter reset and counts.
    data += pod_series({"tenant-a", "idle", "postgres-idle-1", "primary"}, 1, 0, 0.1, 0, t1, t0, {8e6, 2e6});
    data += pod_series({"tenant-a", "idle", "postgres-idle-2", "replica"}, 1, 40, 0.1, 0, t1, t0);
    return data;
  }

  static double value(const std::string& tmpl, const std::string& name = "db") {
    return dha::testing::query_one_value(vm(), tmpl, "tenant-a", name, "postgres-" + name);
  }
};

sdk::Queries app_queries() {
  const sdk::json::Document config = sdk::json::parse("{}", "config");
  return PostgresAdapter(sdk::Host(), config)
      .queries({"tenant-a",
                "db",
                "postgres-db",
                "apps.cozystack.io",
                "Postgres",
                {"ReadConnections", "ReadCPUUtilization"}});
}

TEST_F(PostgresQueriesOnVictoriaMetrics, ReadConnectionsCountActiveBackendsOnReplicasOnly) {
  EXPECT_DOUBLE_EQ(value(app_queries().driver.at("ReadConnections")), 30 + 12);
}

TEST_F(PostgresQueriesOnVictoriaMetrics, ReadCpuIsMillicoresOfThePostgresContainerOnReplicas) {
  EXPECT_NEAR(value(app_queries().driver.at("ReadCPUUtilization")), (0.1 + 0.2) * 1000, 1);
}

TEST_F(PostgresQueriesOnVictoriaMetrics, LagIsTheWorstReplica) { EXPECT_DOUBLE_EQ(value(app_queries().lag_query), 7); }

TEST_F(PostgresQueriesOnVictoriaMetrics, WriteActivityIsThePrimarysWalBytesPerSecond) {
  // db's primary writes 100 B/s of WAL while its standby is never behind (nothing unsent).
  EXPECT_NEAR(value(app_queries().write_activity), 100, 0.5);
}

TEST_F(PostgresQueriesOnVictoriaMetrics, UnsentWalDrainingIsNoWriteActivity) {
  const sdk::json::Document config = sdk::json::parse("{}", "config");
  const sdk::Queries q = PostgresAdapter(sdk::Host(), config)
                             .queries({"tenant-a", "idle", "postgres-idle", "apps.cozystack.io", "Postgres", {}});
  EXPECT_DOUBLE_EQ(value(q.write_activity, "idle"), 0);
  EXPECT_DOUBLE_EQ(value(q.lag_query, "idle"), 40);
}

TEST_F(PostgresQueriesOnVictoriaMetrics, TheOtherApplicationSeesItsOwnReplicas) {
  EXPECT_DOUBLE_EQ(value(app_queries().driver.at("ReadConnections"), "db2"), 7000);
}

TEST_F(PostgresQueriesOnVictoriaMetrics, CnpgClusterTargetJoinsOnTheClusterLabel) {
  const sdk::json::Document config = sdk::json::parse("{}", "config");
  const sdk::Queries q =
      PostgresAdapter(sdk::Host(), config)
          .queries({"tenant-a", "postgres-db", "postgres-db", "postgresql.cnpg.io", "Cluster", {"ReadConnections"}});
  EXPECT_DOUBLE_EQ(value(q.driver.at("ReadConnections"), "postgres-db"), 30 + 12);
  EXPECT_DOUBLE_EQ(value(q.lag_query, "postgres-db"), 7);
}

// 88 s + 11 s per GiB of the primary's databases (1 + 0.25 GiB): the replicas, the other tenant
// and the other application are not counted.
TEST_F(PostgresQueriesOnVictoriaMetrics, ReadyEstimateIsFromThePrimarysDatabaseSizes) {
  EXPECT_NEAR(value(app_queries().ready_estimate), 88 + 11 * 1.25, 0.01);
  EXPECT_NEAR(value(app_queries().ready_estimate, "db2"), 88 + 11 * 20.25, 0.01);
}

}  // namespace
}  // namespace dha::plugins
