// AcmeDB's PromQL against a real VictoriaMetrics (started by the kit's fixture) holding series
// in the label sets AcmeDB's exporter uses: each query must see its own cluster's replicas only —
// never the primary for read load, another cluster in the namespace, or another namespace.
#include <gtest/gtest.h>

#include <string>

#include "acmedb_adapter.hpp"
#include "dha/testing/vm_query_suite.hpp"

namespace {

std::string pod(const std::string& ns, const std::string& cluster, const std::string& name, const std::string& role,
                double connections, double delay, double writes_per_s, int64_t t1, int64_t t0) {
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on long `"literal" + string` chains.
  std::string labels = "{namespace=\"";
  labels.append(ns).append("\",cluster=\"").append(cluster).append("\",pod=\"").append(name);
  labels.append("\",role=\"").append(role).append("\"}");
  std::string out;
  auto sample = [&](const char* metric, double value, int64_t t) {
    out.append(metric).append(labels).append(" ").append(std::to_string(value)).append(" ").append(std::to_string(t));
    out.append("\n");
  };
  sample("acmedb_client_connections", connections, t1);
  sample("acmedb_replica_delay_seconds", delay, t1);
  sample("acmedb_writes_total", 0, t0);
  sample("acmedb_writes_total", 60 * writes_per_s, t1);
  return out;
}

// The kit's VmQuerySuite starts one VictoriaMetrics for the suite, imports series() once, and
// value() renders a query for target() as the host does, insisting on exactly one series.
class AcmeDbQueriesOnVictoriaMetrics : public dha::testing::VmQuerySuite<AcmeDbQueriesOnVictoriaMetrics> {
 public:
  static std::string series(int64_t t1, int64_t t0) {
    std::string data;
    // The target: tenant-a/orders (primary orders-0, replicas orders-1 and orders-2).
    data += pod("tenant-a", "orders", "orders-0", "primary", 900, 0, 40, t1, t0);
    data += pod("tenant-a", "orders", "orders-1", "replica", 30, 2, 0, t1, t0);
    data += pod("tenant-a", "orders", "orders-2", "replica", 12, 5, 0, t1, t0);
    // Another cluster in the same namespace, and the same name in another namespace.
    data += pod("tenant-a", "billing", "billing-1", "replica", 7000, 90, 0, t1, t0);
    data += pod("tenant-b", "orders", "orders-1", "replica", 5000, 80, 0, t1, t0);
    return data;
  }
  static Target target() { return {"tenant-a", "orders", "acmedb-orders"}; }

  static dha::sdk::Queries queries() {
    const auto config = dha::sdk::json::parse(R"({"minQuorum": 1})", "config");
    acme::AcmeDbAdapter adapter(dha::sdk::Host{}, config);
    return adapter.queries({"tenant-a", "orders", "acmedb-orders", "db.example.com", "AcmeDB", {"ReadConnections"}});
  }
};

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
