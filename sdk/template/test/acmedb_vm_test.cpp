// AcmeDB's PromQL against a real VictoriaMetrics (started by the kit's fixture) holding series
// in the label sets AcmeDB's exporter uses: each query must see its own cluster's replicas only —
// never the primary for read load, another cluster in the namespace, or another namespace.
#include <gtest/gtest.h>

#include <string>

#include "acmedb_adapter.hpp"
#include "dha/testing/victoria_metrics.hpp"

namespace {

using dha::testing::VictoriaMetrics;

std::string pod(const std::string& ns, const std::string& cluster, const std::string& name, const std::string& role,
                double connections, double delay, double writes_per_s, int64_t t1, int64_t t0) {
  const std::string l = "namespace=\"" + ns + "\",cluster=\"" + cluster + "\",pod=\"" + name + "\",role=\"" + role + "\"";
  auto at = [](double v, int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; };
  return "acmedb_client_connections{" + l + "}" + at(connections, t1) +  //
         "acmedb_replica_delay_seconds{" + l + "}" + at(delay, t1) +    //
         "acmedb_writes_total{" + l + "}" + at(0, t0) + "acmedb_writes_total{" + l + "}" + at(60 * writes_per_s, t1);
}

class AcmeDbQueriesOnVictoriaMetrics : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = new VictoriaMetrics();
    const int64_t t1 = dha::testing::unix_millis_now() - 1000;
    const int64_t t0 = t1 - 60000;
    std::string data;
    // The target: tenant-a/orders (primary orders-0, replicas orders-1 and orders-2).
    data += pod("tenant-a", "orders", "orders-0", "primary", 900, 0, 40, t1, t0);
    data += pod("tenant-a", "orders", "orders-1", "replica", 30, 2, 0, t1, t0);
    data += pod("tenant-a", "orders", "orders-2", "replica", 12, 5, 0, t1, t0);
    // Another cluster in the same namespace, and the same name in another namespace.
    data += pod("tenant-a", "billing", "billing-1", "replica", 7000, 90, 0, t1, t0);
    data += pod("tenant-b", "orders", "orders-1", "replica", 5000, 80, 0, t1, t0);
    vm_->import_prometheus(data);
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
  }

  static dha::sdk::Queries queries() {
    const auto config = dha::sdk::json::parse(R"({"minQuorum": 1})", "config");
    acme::AcmeDbAdapter adapter(dha::sdk::Host{}, config);
    return adapter.queries({"tenant-a", "orders", "acmedb-orders", "db.example.com", "AcmeDB", {"ReadConnections"}});
  }
  static double value(const std::string& tmpl) {
    return dha::testing::query_one_value(*vm_, tmpl, "tenant-a", "orders", "acmedb-orders");
  }

  static VictoriaMetrics* vm_;
};
VictoriaMetrics* AcmeDbQueriesOnVictoriaMetrics::vm_ = nullptr;

TEST_F(AcmeDbQueriesOnVictoriaMetrics, ReadConnectionsSumTheReplicasOfThisClusterOnly) {
  EXPECT_DOUBLE_EQ(value(queries().driver.at("ReadConnections")), 30 + 12);
}

TEST_F(AcmeDbQueriesOnVictoriaMetrics, LagIsTheWorstReplicaOfThisCluster) {
  EXPECT_DOUBLE_EQ(value(queries().lag_query), 5);
}

TEST_F(AcmeDbQueriesOnVictoriaMetrics, WriteActivityIsThePrimarysRate) {
  EXPECT_NEAR(value(queries().write_activity), 40, 1);
}

}  // namespace
