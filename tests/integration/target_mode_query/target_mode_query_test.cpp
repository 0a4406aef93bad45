// The tutorial's mode-dependent driver query ("A query that depends on the target object"), read
// from the page itself (tutorial_query.hpp): scoped by the host's tenancy check for each target,
// then asked of a real VictoriaMetrics that holds a standby and a multi-primary cluster side by
// side, another namespace's cluster of the same name, and a cluster whose exporter publishes no
// mode.
#include "dha/testing/victoria_metrics.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tenancy/query_template.hpp"
#include "tutorial_query.hpp"

namespace {

using dha::testing::VictoriaMetrics;

class TargetModeQuery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = std::make_unique<VictoriaMetrics>();
    const std::string t = " " + std::to_string(dha::testing::unix_millis_now()) + "\n";
    const auto conns = [&](const char* ns, const char* cluster, const char* pod, const char* role, int value) {
      return std::string("acmedb_client_connections{namespace=\"") + ns + "\",cluster=\"" + cluster + "\",pod=\"" +
             pod + "\",role=\"" + role + "\"} " + std::to_string(value) + t;
    };
    const auto info = [&](const char* ns, const char* cluster, const char* mode) {
      return std::string("acmedb_cluster_info{namespace=\"") + ns + "\",cluster=\"" + cluster + "\",mode=\"" + mode +
             "\"} 1" + t;
    };
    vm_->import_prometheus(
        // tenant-a/orders, standby: the replicas serve the reads, the primary's clients write.
        info("tenant-a", "orders", "standby") + conns("tenant-a", "orders", "orders-1", "primary", 50) +
        conns("tenant-a", "orders", "orders-2", "replica", 30) +
        conns("tenant-a", "orders", "orders-3", "replica", 20) +
        // tenant-a/ledger, multi-primary: every instance serves reads, whatever replication role its
        // exporter reports (a query that ignored the mode would sum the two "replica" ones only).
        info("tenant-a", "ledger", "multi-primary") + conns("tenant-a", "ledger", "ledger-1", "primary", 10) +
        conns("tenant-a", "ledger", "ledger-2", "replica", 20) +
        conns("tenant-a", "ledger", "ledger-3", "replica", 30) +
        // tenant-a/cache: its exporter publishes no mode.
        conns("tenant-a", "cache", "cache-1", "primary", 5) + conns("tenant-a", "cache", "cache-2", "replica", 7) +
        // tenant-b/orders: same cluster name, the other mode, other numbers.
        info("tenant-b", "orders", "multi-primary") + conns("tenant-b", "orders", "orders-1", "primary", 1000) +
        conns("tenant-b", "orders", "orders-2", "replica", 2000));
  }
  static void TearDownTestSuite() { vm_.reset(); }

  // The host's rendering of the tutorial's template for this target; a refusal fails the test.
  static std::string scoped(const std::string& ns, const std::string& name) {
    const auto q = dha::tenancy::render_scoped_query(tutorial_query(), {ns, name, "acmedb-" + name});
    EXPECT_TRUE(q.ok()) << q.refusal;
    return q.query;
  }
  static std::vector<VictoriaMetrics::Sample> answer(const std::string& ns, const std::string& name) {
    return vm_->query_vector(scoped(ns, name));
  }

  static std::unique_ptr<VictoriaMetrics> vm_;
};
std::unique_ptr<VictoriaMetrics> TargetModeQuery::vm_;

TEST_F(TargetModeQuery, AStandbyClusterSumsItsReplicasOnly) {
  const auto samples = answer("tenant-a", "orders");
  ASSERT_EQ(samples.size(), 1u) << scoped("tenant-a", "orders");
  EXPECT_DOUBLE_EQ(samples[0].value, 50) << "30 + 20 on the replicas, not the primary's 50";
}

TEST_F(TargetModeQuery, AMultiPrimaryClusterSumsEveryInstance) {
  const auto samples = answer("tenant-a", "ledger");
  ASSERT_EQ(samples.size(), 1u) << scoped("tenant-a", "ledger");
  EXPECT_DOUBLE_EQ(samples[0].value, 60) << "10 + 20 + 30, the primary's clients too";
}

TEST_F(TargetModeQuery, AnotherNamespacesClusterOfTheSameNameNeverCounts) {
  const auto samples = answer("tenant-b", "orders");
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_DOUBLE_EQ(samples[0].value, 3000) << "tenant-b's orders is multi-primary: its own 1000 + 2000";
  EXPECT_DOUBLE_EQ(answer("tenant-a", "orders").at(0).value, 50) << "and tenant-a's standby orders is unchanged";
}

TEST_F(TargetModeQuery, WithoutAModeThereIsNoReadingRatherThanAWrongOne) {
  EXPECT_TRUE(answer("tenant-a", "cache").empty()) << "no info series: neither half answers";
}

TEST_F(TargetModeQuery, ANameThatTriesToLeaveItsStringReadsNothing) {
  // Kubernetes forbids such names; the host escapes them anyway, so they stay one label value.
  EXPECT_TRUE(answer("tenant-a", R"(orders"} or vector(1) or x{a=")").empty());
  EXPECT_TRUE(answer("tenant-a", "orders\\").empty());
}

TEST_F(TargetModeQuery, TheHostRefusesTheQueryWhenTheInfoSelectorIsNotScopedToTheNamespace) {
  std::string unscoped = tutorial_query();
  const std::string scoped_info = R"(acmedb_cluster_info{namespace="${namespace}", )";
  for (auto at = unscoped.find(scoped_info); at != std::string::npos; at = unscoped.find(scoped_info))
    unscoped.replace(at, scoped_info.size(), "acmedb_cluster_info{");
  ASSERT_NE(unscoped, tutorial_query()) << "the tutorial's info selectors are scoped as the test expects";
  const auto q = dha::tenancy::render_scoped_query(unscoped, {"tenant-a", "orders", "acmedb-orders"});
  EXPECT_FALSE(q.ok()) << q.query;
  EXPECT_NE(q.refusal.find("namespace"), std::string::npos) << q.refusal;
}

}  // namespace
