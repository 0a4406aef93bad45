// The observe stage with grouped metric queries and without, on the same VictoriaMetrics series:
// every DHA's observation is the same field by field, and so are the causes a MetricUnavailable
// condition names; a namespace of several DHAs costs one query per signal and cycle.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dha/testing/victoria_metrics.hpp"
#include "grouped_observer.hpp"

namespace {

using grouped_observation::now_ms;
using grouped_observation::TestClock;

struct Db {
  std::string ns, name;
  bool cnpg_cluster = false;  // a bare postgresql.cnpg.io Cluster instead of the cozystack Application
};

grouped_observation::TargetObject target_of(const Db& db) {
  if (!db.cnpg_cluster) return grouped_observation::cozystack_application("Postgres", db.ns, db.name);
  return {db.ns, db.name, "postgresql.cnpg.io", "Cluster",
          R"({"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster", "metadata": {"name": ")" + db.name +
              R"(", "namespace": ")" + db.ns + R"("}, "spec": {"instances": 3}})"};
}

// The observe stage with the postgres adapter.
class Observer {
 public:
  Observer(const std::string& vm_url, bool grouped, std::int64_t max_age_seconds, const TestClock& clock)
      : observer_(DHA_POSTGRES_DIR, "postgres", DHA_METRICS_VM_DIR, vm_url, grouped, max_age_seconds, clock) {}
  dha::pipeline::Signals signals(const Db& db, const std::string& behavior = "") const {
    return observer_.signals(target_of(db), behavior);
  }
  double queries_sent(const std::string& shape) const { return observer_.queries_sent(shape); }

 private:
  grouped_observation::Observer observer_;
};

void expect_same(const dha::pipeline::Signals& grouped, const dha::pipeline::Signals& own, const Db& db) {
  grouped_observation::expect_same(grouped, own, db.ns + "/" + db.name);
}

// One database's pods and series: a primary and two read replicas, `active` connections and
// `cpu` cores per replica (NaN written as such), `lag` seconds.
std::string series(const Db& db, const std::string& active, double cpu, double lag, std::int64_t t1) {
  const std::int64_t t0 = t1 - 60'000;
  auto at = [](const std::string& v, std::int64_t t) { return " " + v + " " + std::to_string(t) + "\n"; };
  const std::string owner = db.cnpg_cluster ? "label_cnpg_io_cluster=\"" + db.name + "\""
                                            : "label_apps_cozystack_io_application_name=\"" + db.name +
                                                  "\",label_apps_cozystack_io_application_kind=\"Postgres\","
                                                  "label_cnpg_io_cluster=\"postgres-" +
                                                  db.name + "\"";
  std::string d;
  for (const std::string role : {"primary", "replica", "replica"}) {
    const std::string pod = db.name + "-" + std::to_string(d.size());  // unique within the database
    const std::string id = "namespace=\"" + db.ns + "\",pod=\"" + pod + "\"";
    d += "kube_pod_labels{" + id + "," + owner + ",label_cnpg_io_instance_role=\"" + role + "\"}" + at("1", t1);
    if (role == "primary" && !active.empty())  // 1 GiB of databases: a 120 s ready estimate
      d += "cnpg_pg_database_size_bytes{" + id + ",datname=\"app\"}" + at("1073741824", t1);
    if (!active.empty()) {
      d += "cnpg_backends_total{" + id + ",datname=\"app\",state=\"active\"}" + at(active, t1);
      d += "cnpg_backends_total{" + id + ",datname=\"other\",state=\"active\"}" + at("2", t1);
      d += "cnpg_backends_total{" + id + ",datname=\"app\",state=\"idle\"}" + at("40", t1);
      d += "container_cpu_usage_seconds_total{" + id + ",container=\"postgres\"}" + at("100", t0) +
           "container_cpu_usage_seconds_total{" + id + ",container=\"postgres\"}" +
           at(std::to_string(100 + cpu * 60), t1);
      d += "cnpg_pg_replication_lag{" + id + "}" + at(std::to_string(role == "primary" ? 0 : lag), t1);
    }
    if (role == "primary" && !active.empty()) {
      d += "cnpg_collector_wal_bytes{" + id + ",stats_reset=\"r\"}" + at("0", t0) + "cnpg_collector_wal_bytes{" + id +
           ",stats_reset=\"r\"}" + at("6000", t1);
    }
  }
  return d;
}

class GroupedObservation : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = new dha::testing::VictoriaMetrics();
    const std::int64_t t = now_ms() - 1000;
    std::string d;
    d += series({"tenant-a", "db1"}, "30", 0.25, 3, t);
    d += series({"tenant-a", "db2"}, "7", 0.5, 12, t);
    d += series({"tenant-a", "orders"}, "120", 1.5, 0.5, t);
    d += series({"tenant-a", "db4"}, "-50", 0.1, 1, t);       // a broken exporter: negative connections
    d += series({"tenant-a", "pg9", true}, "11", 0.2, 2, t);  // a bare CNPG Cluster in the same namespace
    d += series({"tenant-a", "gone"}, "", 0, 0, t);           // pods, but none of the metric series
    d += series({"tenant-b", "db1"}, "300", 2, 9, t);         // the same name in another namespace
    d += series({"tenant-c", "db1"}, "+Inf", 0.3, 1, t);      // a non-finite reading
    d += series({"tenant-c", "db2"}, "5", 0.3, 1, t);
    d += series({"tenant-c", "db3"}, "NaN", 0.3, 1, t);  // VictoriaMetrics leaves NaN samples out
    d += series({"tenant-d", "db1"}, "NaN", 0.3, 1, t);
    vm_->import_prometheus(d);
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
  }

  static inline dha::testing::VictoriaMetrics* vm_ = nullptr;
  TestClock clock_;
};

const std::vector<Db> kDbs{{"tenant-a", "db1"},       {"tenant-a", "db2"},  {"tenant-a", "orders"}, {"tenant-a", "db4"},
                           {"tenant-a", "pg9", true}, {"tenant-a", "gone"}, {"tenant-a", "never"},  {"tenant-b", "db1"},
                           {"tenant-b", "db2"},       {"tenant-c", "db1"},  {"tenant-c", "db2"},    {"tenant-c", "db3"},
                           {"tenant-d", "db1"}};

TEST_F(GroupedObservation, EveryDhaObservesWhatItsOwnQueriesRead) {
  const Observer grouped(vm_->url(), true, 60, clock_);
  const Observer own(vm_->url(), false, 60, clock_);
  for (const auto& db : kDbs) expect_same(grouped.signals(db), own.signals(db), db);
  EXPECT_GT(grouped.queries_sent("grouped"), 0);
  EXPECT_EQ(own.queries_sent("grouped"), 0);
}

// What the comparison stands on: real numbers where there are series, and each way a reading
// can be unavailable, with the cause the condition message shows.
TEST_F(GroupedObservation, TheComparedReadingsCoverValuesAndEachUnavailableCase) {
  const Observer grouped(vm_->url(), true, 60, clock_);
  const auto db1 = grouped.signals({"tenant-a", "db1"});
  ASSERT_TRUE(db1.observation.metrics[0].value);
  EXPECT_DOUBLE_EQ(*db1.observation.metrics[0].value, 2 * (30 + 2));  // active, both databases, replicas only
  ASSERT_TRUE(db1.observation.metrics[1].value);
  EXPECT_NEAR(*db1.observation.metrics[1].value, 2 * 0.25 * 1000, 1);
  ASSERT_TRUE(db1.observation.lag_seconds);
  EXPECT_DOUBLE_EQ(*db1.observation.lag_seconds, 3);
  ASSERT_TRUE(db1.observation.write_rate);
  EXPECT_GT(*db1.observation.write_rate, 0);
  const auto other_tenant = grouped.signals({"tenant-b", "db1"});
  EXPECT_DOUBLE_EQ(other_tenant.observation.metrics[0].value.value_or(-1), 2 * (300 + 2));

  const auto gone = grouped.signals({"tenant-a", "gone"});
  EXPECT_FALSE(gone.observation.metrics[0].value);
  EXPECT_EQ(gone.metric_causes.at(0), "query for ReadConnections returned no series");
  const auto negative = grouped.signals({"tenant-a", "db4"});
  EXPECT_FALSE(negative.observation.metrics[0].value);
  EXPECT_EQ(negative.metric_causes.at(0), "ReadConnections query returned -96, a negative value");
  const auto infinite = grouped.signals({"tenant-c", "db1"});
  EXPECT_FALSE(infinite.observation.metrics[0].value);
  ASSERT_FALSE(infinite.metric_causes.empty());
  EXPECT_NE(infinite.metric_causes[0].find("query for ReadConnections failed (non_finite)"), std::string::npos)
      << infinite.metric_causes[0];
  const auto nan = grouped.signals({"tenant-c", "db3"});
  EXPECT_DOUBLE_EQ(nan.observation.metrics[0].value.value_or(-1), 2 * 2)
      << "the NaN sample is left out, the other counts";
  const auto neighbour = grouped.signals({"tenant-c", "db2"});
  EXPECT_DOUBLE_EQ(neighbour.observation.metrics[0].value.value_or(-1), 2 * (5 + 2))
      << "a non-finite series of one database spoils no other database's reading";
}

// Six DHAs of one namespace and kind cost one query per signal and cycle (two driver metrics,
// lag, write activity), where their own queries cost six times that; the next cycle asks again.
TEST_F(GroupedObservation, ANamespaceCostsOneQueryPerSignalPerCycleNotOnePerDha) {
  const std::vector<Db> namespace_a{{"tenant-a", "db1"}, {"tenant-a", "db2"}, {"tenant-a", "orders"},
                                    {"tenant-a", "a1"},  {"tenant-a", "a2"},  {"tenant-a", "a3"}};
  const double signals = 4;
  const Observer grouped(vm_->url(), true, 60, clock_);
  const Observer own(vm_->url(), false, 60, clock_);
  for (const auto& db : namespace_a) {
    grouped.signals(db);
    own.signals(db);
  }
  EXPECT_EQ(grouped.queries_sent("grouped"), signals);
  EXPECT_EQ(grouped.queries_sent("target"), 0);
  EXPECT_EQ(own.queries_sent("target"), 3 * signals + 3 * 3)
      << "db1, db2 and orders read all four; a1..a3 have no lag, so no write activity is asked";

  clock_.seconds += 60;
  for (const auto& db : namespace_a) grouped.signals(db);
  EXPECT_EQ(grouped.queries_sent("grouped"), 2 * signals) << "a new cycle asks again";
}

// An Adaptive DHA without a measured ready time also reads the adapter's ready estimate: one
// grouped query for the namespace, the same value and causes as each DHA's own query.
TEST_F(GroupedObservation, AnAdaptiveDhasReadyEstimateIsOneGroupedQueryToo) {
  const std::string adaptive = R"({"policy": "Adaptive"})";
  const Observer grouped(vm_->url(), true, 60, clock_);
  const Observer own(vm_->url(), false, 60, clock_);
  for (const auto& db : kDbs) expect_same(grouped.signals(db, adaptive), own.signals(db, adaptive), db);
  const auto db1 = own.signals({"tenant-a", "db1"}, adaptive).observation.ready_estimate_seconds;
  ASSERT_TRUE(db1);
  EXPECT_DOUBLE_EQ(*db1, 88 + 11 * 1) << "the postgres adapter's estimate for its primary's 1 GiB";
  EXPECT_FALSE(own.signals({"tenant-a", "gone"}, adaptive).observation.ready_estimate_seconds) << "no sizes";
  EXPECT_FALSE(own.signals({"tenant-a", "db1"}).observation.ready_estimate_seconds) << "Windowed: not read";

  const Observer counted(vm_->url(), true, 60, clock_);
  for (const Db& db : {Db{"tenant-a", "db1"}, Db{"tenant-a", "db2"}, Db{"tenant-a", "orders"}})
    counted.signals(db, adaptive);
  EXPECT_EQ(counted.queries_sent("grouped"), 5) << "two driver metrics, lag, write activity and the estimate";
  EXPECT_EQ(counted.queries_sent("target"), 0);
}

// With no metric source to reach, the one grouped query fails for every DHA exactly as each
// DHA's own query would: the same cause, not a fallback to N more queries that time out too.
TEST_F(GroupedObservation, AnUnreachableSourceFailsEachDhaAsItsOwnQueryWould) {
  const Observer grouped("http://127.0.0.1:1", true, 60, clock_);
  const Observer own("http://127.0.0.1:1", false, 60, clock_);
  for (const auto& db : std::vector<Db>{{"tenant-a", "db1"}, {"tenant-a", "db2"}})
    expect_same(grouped.signals(db), own.signals(db), db);
  EXPECT_EQ(grouped.queries_sent("target"), 0);
  EXPECT_EQ(grouped.queries_sent("grouped"), 3) << "the two driver metrics and lag; no write activity without lag";
}

}  // namespace
