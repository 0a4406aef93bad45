// Grouped observation for the mariadb and mongodb adapters against a real VictoriaMetrics: several
// databases of each engine in one namespace, series shaped as their exporters, cAdvisor and
// kube-state-metrics emit them. Every DHA observes from the one grouped answer per signal exactly
// what its own queries read: values, a database without series, and replica/secondary filters
// that keep each database's instances to itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "dha/testing/victoria_metrics.hpp"
#include "grouped_observer.hpp"

namespace {

using grouped_observation::cozystack_application;
using grouped_observation::expect_same;
using grouped_observation::Observer;
using grouped_observation::TestClock;

std::string at(double v, std::int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; }

// A counter going from `from` to `from + 60 * per_second` over the minute before t1.
std::string counter(const std::string& series, double from, double per_second, std::int64_t t1) {
  return series + at(from, t1 - 60'000) + series + at(from + 60 * per_second, t1);
}

std::string kube_pod(const std::string& ns, const std::string& pod, const std::string& labels, std::int64_t t1) {
  return "kube_pod_labels{job=\"kube-state-metrics\",namespace=\"" + ns + "\",pod=\"" + pod + "\"," + labels + "}" +
         at(1, t1);
}

std::string cadvisor_cpu(const std::string& ns, const std::string& pod, const std::string& container, double cores,
                         std::int64_t t1) {
  return counter("container_cpu_usage_seconds_total{job=\"kubelet\",namespace=\"" + ns + "\",pod=\"" + pod +
                     "\",cpu=\"total\",container=\"" + container + "\"}",
                 5, cores, t1);
}

// ---- MariaDB: one mysqld_exporter job mariadb-<name>-metrics probes every instance, told apart
// by `target`; replicas are the targets exporting slave status.

struct MariadbInstance {
  bool replica;
  double threads, lag, queries_per_s, cores;
};

struct MariadbDb {
  std::string ns, name;
  std::vector<MariadbInstance> instances;
  bool exporter = true;
  // The `target` of instance i: its pod's DNS name as mariadb-operator's scrape sets it, or
  // (addressed_as) the pod DNS name of the database named so, as when two exporters probe
  // instances by the same address.
  std::string addressed_as = {};
};

std::string mariadb_series(const MariadbDb& db, std::int64_t t1) {
  std::string s;
  for (std::size_t i = 0; i < db.instances.size(); ++i) {
    const MariadbInstance& m = db.instances[i];
    const std::string pod = "mariadb-" + db.name + "-" + std::to_string(i);
    const std::string host = db.addressed_as.empty() ? db.name : db.addressed_as;
    const std::string target = "mariadb-" + host + "-" + std::to_string(i) + ".mariadb-" + host + "-internal." + db.ns +
                               ".svc.cluster.local:3306";
    s += kube_pod(db.ns, pod,
                  "label_app_kubernetes_io_instance=\"mariadb-" + db.name +
                      "\",label_app_kubernetes_io_name=\"mariadb\",label_k8s_mariadb_com_role=\"" +
                      (m.replica ? "replica" : "primary") + "\"",
                  t1);
    s += cadvisor_cpu(db.ns, pod, "mariadb", m.cores, t1);
    if (!db.exporter) continue;
    const std::string exporter = "namespace=\"" + db.ns + "\",job=\"mariadb-" + db.name + "-metrics\",pod=\"mariadb-" +
                                 db.name + "-metrics-7d9f\",instance=\"10.2.0.5:9104\",target=\"" + target + "\"";
    s += "mysql_global_status_threads_connected{" + exporter + "}" + at(m.threads, t1);
    s += counter("mysql_global_status_queries{" + exporter + "}", 1e6, m.queries_per_s, t1);
    if (m.replica) {
      const std::string slave =
          exporter + ",channel_name=\"\",connection_name=\"\",master_host=\"mariadb-" + host + "-0\",master_uuid=\"\"";
      s += "mysql_slave_status_slave_io_running{" + slave + "}" + at(1, t1);
      s += "mysql_slave_status_seconds_behind_master{" + slave + "}" + at(m.lag, t1);
    }
  }
  return s;
}

const std::vector<MariadbDb>& mariadbs() {
  static const std::vector<MariadbDb> dbs{
      {"tenant-a", "db", {{false, 300, 0, 40, 2.0}, {true, 21, 4, 5, 0.3}, {true, 9, 11, 5, 0.1}}},
      {"tenant-a", "shop", {{false, 500, 0, 70, 1.0}, {true, 13, 2, 3, 0.2}}},
      // Its exporter reports `db`'s addresses with the roles swapped: its replica has the address
      // of db's primary. A filter matched on(target) alone would count db's primary as a replica.
      {"tenant-a", "twin", {{true, 600, 7, 2, 0.4}, {false, 800, 0, 90, 0.9}}, true, "db"},
      {"tenant-a", "fresh", {{false, 50, 0, 8, 0.5}}},                             // no replica yet
      {"tenant-a", "gone", {{false, 1, 0, 1, 0.1}, {true, 1, 1, 1, 0.1}}, false},  // pods, no exporter series
      {"tenant-b", "db", {{false, 3000, 0, 400, 5}, {true, 9000, 900, 900, 9}}},   // the same name elsewhere
  };
  return dbs;
}

// ---- MongoDB (Percona mongodb_exporter, "compatible" names): members in replica-set state 2
// are secondaries, 1 the primary; kube_pod_labels names the application of each pod.

struct MongodbMember {
  int state;
  double connections, lag, writes_per_s, cores;
};

struct MongodbDb {
  std::string ns, name;
  std::vector<MongodbMember> members;
  bool exporter = true;
};

std::string mongodb_series(const MongodbDb& db, std::int64_t t1) {
  std::string s;
  for (std::size_t i = 0; i < db.members.size(); ++i) {
    const MongodbMember& m = db.members[i];
    const std::string pod = "mongodb-" + db.name + "-rs0-" + std::to_string(i);
    s += kube_pod(db.ns, pod,
                  "label_app_kubernetes_io_instance=\"mongodb-" + db.name +
                      "\",label_app_kubernetes_io_component=\"mongod\",label_app_kubernetes_io_replset=\"rs0\"",
                  t1);
    s += cadvisor_cpu(db.ns, pod, "mongod", m.cores, t1);
    if (!db.exporter) continue;
    const std::string exporter = "namespace=\"" + db.ns + "\",pod=\"" + pod + "\",job=\"mongodb-" + db.name +
                                 "\",instance=\"10.3.0." + std::to_string(i) + ":9216\",rs_nm=\"rs0\"";
    s += "mongodb_mongod_replset_my_state{" + exporter + ",set=\"rs0\"}" + at(m.state, t1);
    s += "mongodb_ss_connections{" + exporter + ",conn_type=\"current\"}" + at(m.connections, t1);
    s += "mongodb_ss_connections{" + exporter + ",conn_type=\"available\"}" + at(50000, t1);
    s += "mongodb_mongod_replset_member_replication_lag{" + exporter + ",name=\"" + pod +
         ":27017\",set=\"rs0\",state=\"" + (m.state == 1 ? "PRIMARY" : "SECONDARY") + "\"}" + at(m.lag, t1);
    for (const std::string op : {"insert", "update", "delete", "query"})
      s += counter("mongodb_ss_opcounters{" + exporter + ",legacy_op_type=\"" + op + "\"}", 100,
                   op == "query" ? 10000 : m.writes_per_s, t1);
  }
  return s;
}

const std::vector<MongodbDb>& mongodbs() {
  static const std::vector<MongodbDb> dbs{
      {"tenant-a", "db", {{1, 700, 0, 10, 3.0}, {2, 17, 2, 0, 0.25}, {2, 23, 6, 0, 0.05}}},
      // A member recovering (state 3) is no secondary: its connections and CPU do not count.
      {"tenant-a", "shop", {{1, 400, 0, 4, 1.0}, {2, 5, 1, 0, 0.4}, {3, 99, 30, 0, 0.7}}},
      {"tenant-a", "solo", {{1, 60, 0, 2, 0.5}}},                           // no secondary
      {"tenant-a", "gone", {{1, 1, 0, 1, 0.1}, {2, 1, 1, 0, 0.1}}, false},  // pods, no exporter series
      {"tenant-b", "db", {{1, 3000, 0, 400, 5}, {2, 9000, 900, 0, 9}}},     // the same name elsewhere
  };
  return dbs;
}

// Both engines' series in one VictoriaMetrics, loaded once.
class GroupedMariadbMongodb : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = new dha::testing::VictoriaMetrics();
    const std::int64_t t1 = grouped_observation::now_ms() - 1000;
    std::string d;
    for (const auto& db : mariadbs()) d += mariadb_series(db, t1);
    for (const auto& db : mongodbs()) d += mongodb_series(db, t1);
    vm_->import_prometheus(d);
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
  }

  static Observer mariadb(bool grouped, const TestClock& clock) {
    return Observer(DHA_MARIADB_DIR, "mariadb", DHA_METRICS_VM_DIR, vm_->url(), grouped, 60, clock);
  }
  static Observer mongodb(bool grouped, const TestClock& clock) {
    return Observer(DHA_MONGODB_DIR, "mongodb", DHA_METRICS_VM_DIR, vm_->url(), grouped, 60, clock);
  }

  static inline dha::testing::VictoriaMetrics* vm_ = nullptr;
  TestClock clock_;
};

// Reading one DHA's signals: [0] ReadConnections, [1] ReadCPUUtilization (millicores).
double connections(const dha::pipeline::Signals& s) { return s.observation.metrics.at(0).value.value_or(-1); }
double cpu(const dha::pipeline::Signals& s) { return s.observation.metrics.at(1).value.value_or(-1); }

// Each named tenant-a application of `kind`: the grouped observer reads what its own queries do.
void expect_every_dha_same(const Observer& grouped, const Observer& own, const char* kind,
                           std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const auto target = cozystack_application(kind, "tenant-a", name);
    expect_same(grouped.signals(target), own.signals(target), std::string(kind) + " tenant-a/" + name);
  }
}

TEST_F(GroupedMariadbMongodb, EveryMariadbDhaObservesWhatItsOwnQueriesRead) {
  const Observer grouped = mariadb(true, clock_);
  const Observer own = mariadb(false, clock_);
  expect_every_dha_same(grouped, own, "MariaDB", {"db", "shop", "twin", "fresh", "gone", "never"});
  EXPECT_EQ(grouped.queries_sent("grouped"), 4) << "two driver metrics, lag and write activity, once for tenant-a";
  EXPECT_EQ(grouped.queries_sent("target"), 0);
  EXPECT_EQ(own.queries_sent("target"), 3 * 4 + 3 * 3) << "fresh, gone and never have no lag, so no write activity";
  const auto other = cozystack_application("MariaDB", "tenant-b", "db");
  expect_same(grouped.signals(other), own.signals(other), "MariaDB tenant-b/db");
}

TEST_F(GroupedMariadbMongodb, TheComparedMariadbReadingsCoverValuesAndEachUnavailableCase) {
  const Observer grouped = mariadb(true, clock_);
  const auto db = grouped.signals(cozystack_application("MariaDB", "tenant-a", "db"));
  EXPECT_DOUBLE_EQ(connections(db), 21 + 9) << "db's replicas only, though twin's replica has db's primary's address";
  EXPECT_NEAR(cpu(db), (0.3 + 0.1) * 1000, 1);
  EXPECT_DOUBLE_EQ(db.observation.lag_seconds.value_or(-1), 11);
  EXPECT_NEAR(db.observation.write_rate.value_or(-1), 40, 0.5) << "db's primary, not excluded by twin's replica";
  const auto twin = grouped.signals(cozystack_application("MariaDB", "tenant-a", "twin"));
  EXPECT_DOUBLE_EQ(connections(twin), 600);
  EXPECT_NEAR(twin.observation.write_rate.value_or(-1), 90, 0.5);
  const auto shop = grouped.signals(cozystack_application("MariaDB", "tenant-a", "shop"));
  EXPECT_DOUBLE_EQ(connections(shop), 13);
  EXPECT_DOUBLE_EQ(shop.observation.lag_seconds.value_or(-1), 2);
  const auto other = grouped.signals(cozystack_application("MariaDB", "tenant-b", "db"));
  EXPECT_DOUBLE_EQ(connections(other), 9000);

  const auto fresh = grouped.signals(cozystack_application("MariaDB", "tenant-a", "fresh"));
  EXPECT_FALSE(fresh.observation.metrics[0].value);
  EXPECT_FALSE(fresh.observation.metrics[1].value);
  EXPECT_FALSE(fresh.observation.lag_seconds);
  EXPECT_EQ(fresh.metric_causes.at(0), "query for ReadConnections returned no series");
  const auto gone = grouped.signals(cozystack_application("MariaDB", "tenant-a", "gone"));
  EXPECT_FALSE(gone.observation.metrics[0].value);
  EXPECT_NEAR(cpu(gone), 0.1 * 1000, 1) << "cAdvisor and kube-state-metrics still see its replica";
  EXPECT_FALSE(gone.observation.lag_seconds);
}

TEST_F(GroupedMariadbMongodb, EveryMongodbDhaObservesWhatItsOwnQueriesRead) {
  const Observer grouped = mongodb(true, clock_);
  const Observer own = mongodb(false, clock_);
  expect_every_dha_same(grouped, own, "MongoDB", {"db", "shop", "solo", "gone", "never"});
  EXPECT_EQ(grouped.queries_sent("grouped"), 4) << "two driver metrics, lag and write activity, once for tenant-a";
  EXPECT_EQ(grouped.queries_sent("target"), 0);
  EXPECT_EQ(own.queries_sent("target"), 3 * 4 + 2 * 3) << "gone and never have no lag, so no write activity";
  const auto other = cozystack_application("MongoDB", "tenant-b", "db");
  expect_same(grouped.signals(other), own.signals(other), "MongoDB tenant-b/db");
}

TEST_F(GroupedMariadbMongodb, TheComparedMongodbReadingsCoverValuesAndEachUnavailableCase) {
  const Observer grouped = mongodb(true, clock_);
  const auto db = grouped.signals(cozystack_application("MongoDB", "tenant-a", "db"));
  EXPECT_DOUBLE_EQ(connections(db), 17 + 23) << "secondaries only";
  EXPECT_NEAR(cpu(db), (0.25 + 0.05) * 1000, 1);
  EXPECT_DOUBLE_EQ(db.observation.lag_seconds.value_or(-1), 6);
  EXPECT_NEAR(db.observation.write_rate.value_or(-1), 3 * 10, 0.5) << "the primary's inserts, updates, deletes";
  const auto shop = grouped.signals(cozystack_application("MongoDB", "tenant-a", "shop"));
  EXPECT_DOUBLE_EQ(connections(shop), 5) << "the recovering member is no secondary";
  EXPECT_NEAR(cpu(shop), 0.4 * 1000, 1);
  EXPECT_DOUBLE_EQ(shop.observation.lag_seconds.value_or(-1), 30) << "lag is every member's";
  const auto other = grouped.signals(cozystack_application("MongoDB", "tenant-b", "db"));
  EXPECT_DOUBLE_EQ(connections(other), 9000);

  const auto solo = grouped.signals(cozystack_application("MongoDB", "tenant-a", "solo"));
  EXPECT_FALSE(solo.observation.metrics[0].value);
  EXPECT_EQ(solo.metric_causes.at(0), "query for ReadConnections returned no series");
  EXPECT_NEAR(solo.observation.write_rate.value_or(-1), 3 * 2, 0.5);
  const auto gone = grouped.signals(cozystack_application("MongoDB", "tenant-a", "gone"));
  EXPECT_FALSE(gone.observation.metrics[0].value);
  EXPECT_FALSE(gone.observation.metrics[1].value) << "no member state, so no secondary";
  EXPECT_FALSE(gone.observation.lag_seconds);
}

}  // namespace
