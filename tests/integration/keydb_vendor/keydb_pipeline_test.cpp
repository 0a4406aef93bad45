// The vendor's four plugins in the operator's real pipeline through the kit's PipelineWorld:
// its own metric source instead of metrics-vm, each plugin with its own configuration, the count
// at spec.topology.nodes, and the decisions read as the kit's structured Events and conditions
// rather than as prose.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "dha/testing/pipeline_world.hpp"

namespace {

using namespace std::chrono_literals;
using dha::testing::ObjectRef;

const ObjectRef kOrders{"db.example.com", "v1", "keydbs", "tenant-a", "orders"};
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "orders"};

// The plugin `variable` names, else `otherwise`.
std::string plugin(const char* variable, const char* otherwise) {
  const char* named = std::getenv(variable);
  return named != nullptr && *named != '\0' ? named : otherwise;
}
// The gate under test: keydb-write-burst, or what KEYDB_GATE names (keydb-never-holds, to show
// that the write-burst case fails with a gate that never holds).
std::string gate() { return plugin("KEYDB_GATE", "keydb-write-burst"); }
// The adapter: keydb, or what KEYDB_ADAPTER names (keydb-no-lag, to show that the write-burst
// case holds without a lag query too).
std::string adapter() { return plugin("KEYDB_ADAPTER", "keydb"); }

class KeyDbPipeline : public ::testing::Test {
 protected:
  void start(std::int64_t nodes) {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {KEYDB_CRD_DIR, DHA_CHART_CRD_DIR};  // the kit serves the DHA CRD from here in-tree
    options.plugin_dirs = {KEYDB_PLUGIN_DIR};
    options.plugins = {adapter(), "keydb-nodes", gate()};
    options.metrics_plugin = "orgid-metrics";
    options.plugin_config = {{"orgid-metrics", R"({"url": "${metricsUrl}", "orgId": "${namespace}"})"},
                             {adapter(), R"({"minNodes": 2})"},
                             {"keydb-nodes", R"({"drainField": "drainFirst"})"},
                             {gate(), R"({"maxWriteRate": 500})"}};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    world_->create_healthy_target({.object = kOrders,
                                   .kind = "KeyDB",
                                   .replicas = nodes,
                                   .monitor = "keydb-orders",
                                   .monitor_kind = "keydb",
                                   .replicas_path = "spec.topology.nodes"});
  }
  // Connected clients on the read nodes now, split over the two the exporter reports.
  void set_clients(double clients) {
    const auto t = std::to_string(dha::testing::unix_millis_now());
    world_->vm().import_prometheus(
        "keydb_connected_clients{namespace=\"tenant-a\",cluster=\"orders\",role=\"replica\",pod=\"orders-1\"} " +
        std::to_string(clients / 2) + " " + t + "\n" +
        "keydb_connected_clients{namespace=\"tenant-a\",cluster=\"orders\",role=\"replica\",pod=\"orders-2\"} " +
        std::to_string(clients / 2) + " " + t + "\n");
  }
  // `per_second` writes on the primary over the last 30 s (a counter, as the exporter has it).
  void set_writes(double per_second) {
    const auto now = dha::testing::unix_millis_now();
    const std::string series =
        "keydb_commands_processed_total{namespace=\"tenant-a\",cluster=\"orders\",role=\"primary\",pod=\"orders-0\"} ";
    world_->vm().import_prometheus(series + "0 " + std::to_string(now - 30000) + "\n" + series +
                                   std::to_string(per_second * 30) + " " + std::to_string(now) + "\n");
  }
  // The burst's samples would stay inside the write query's one-minute window (of wall time) for
  // a minute; deleting the series stands in for that minute passing.
  void end_burst() {
    const auto r = dha::testing::http_request(
        "POST", world_->vm().url() + "/api/v1/admin/tsdb/delete_series?match%5B%5D=keydb_commands_processed_total");
    ASSERT_EQ(r.status, 204) << r.error << r.body;
  }
  // Seconds the read nodes are behind the primary now.
  void set_lag(double seconds) {
    const auto t = std::to_string(dha::testing::unix_millis_now());
    const std::string series =
        R"(keydb_replication_lag_seconds{namespace="tenant-a",cluster="orders",role="replica",pod=")";
    std::string lines;
    for (const char* pod : {"orders-1", "orders-2"})
      lines += series + pod + "\"} " + std::to_string(seconds) + " " + t + "\n";
    world_->vm().import_prometheus(lines);
  }
  std::optional<dha::testing::ConditionRecord> condition(const std::string& type) {
    for (const auto& c : world_->pipeline().conditions("tenant-a", "orders"))
      if (c.type == type) return c;
    return std::nullopt;
  }
  void create_dha() {
    world_->create_dha("orders", R"({"targetRef": {"apiGroup": "db.example.com", "kind": "KeyDB", "name": "orders"},
        "minReplicas": 2, "maxReplicas": 6, "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}],
        "behavior": {"policy": "Windowed", "scaleUp": {"stabilizationWindowSeconds": 0, "step": 1},
                     "scaleDown": {"stabilizationWindowSeconds": 0, "step": 1}}})");
  }
  void reconcile() {
    const auto outcome = world_->pipeline().reconcile("tenant-a", "orders");
    ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  }
  std::int64_t nodes() { return world_->pipeline().read_int(kOrders, "spec.topology.nodes").value_or(-1); }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
};

TEST_F(KeyDbPipeline, ScalesTheNodesThreeToFourThroughItsOwnMetricSource) {
  start(3);
  set_clients(250);  // 250 over 2 read nodes = 125 each, above 100: 3 read nodes + the primary
  create_dha();
  reconcile();
  EXPECT_EQ(nodes(), 4);
  const auto scaled = world_->pipeline().event_records("tenant-a", "Scaled");
  ASSERT_EQ(scaled.size(), 1u);
  EXPECT_EQ(scaled[0].dha, "orders");
  EXPECT_EQ(scaled[0].type, "Normal");
  EXPECT_EQ(scaled[0].from, 3);
  EXPECT_EQ(scaled[0].to, 4);
  EXPECT_EQ(scaled[0].decision, "Scale");
  ASSERT_EQ(scaled[0].metrics.size(), 1u);
  EXPECT_EQ(scaled[0].metrics[0].type, "ReadConnections");
  EXPECT_DOUBLE_EQ(scaled[0].metrics[0].value, 125);
  EXPECT_EQ(scaled[0].metrics[0].target, 100);
  EXPECT_FALSE(scaled[0].message.empty()) << "the prose is still there, for people";
}

// The gate holds a scale-down while the primary takes more writes than its configured 500/s, and
// lets it through once the writes fall. With KEYDB_GATE=keydb-never-holds (the gate variant
// that passes everything), or KEYDB_ADAPTER=keydb-no-lag (no lag query, so the host never reads
// the write rate), this test must fail: ctest runs it both ways too and expects the failure.
TEST_F(KeyDbPipeline, AWriteBurstAboveTheConfiguredRateHoldsTheScaleDownUntilTheWritesFall) {
  start(4);
  set_clients(100);  // one read node suffices: 2 in all, 3 after one step
  set_lag(0);        // the host reads the write activity beside a lag in seconds
  set_writes(1000);  // above the gate's configured 500 (its default, 1000, would not hold)
  create_dha();
  reconcile();
  EXPECT_EQ(nodes(), 4) << "the gate holds the scale-down";
  EXPECT_TRUE(world_->pipeline().event_records("tenant-a", "Scaled").empty());
  const auto limited = condition("ScalingLimited");
  ASSERT_TRUE(limited.has_value()) << "the hold is a ScalingLimited condition";
  EXPECT_EQ(limited->status, "True");
  EXPECT_EQ(limited->reason, "WriteBurst") << "the condition carries the gate's reason";
  EXPECT_EQ(world_->pipeline().read_int(kDha, "status.currentReplicas"), 4);
  EXPECT_EQ(world_->pipeline().read_int(kDha, "status.lastDecision.rawDesiredReplicas"), 2) << "the load asked for 2";
  EXPECT_EQ(world_->pipeline().read_int(kDha, "status.desiredReplicas"), 4) << "held at the current count";

  world_->pipeline().clock().advance(60s);
  end_burst();
  set_writes(100);  // below 500
  reconcile();
  EXPECT_EQ(nodes(), 3) << "the scale-down goes ahead once the writes fall";
  const auto scaled = world_->pipeline().event_records("tenant-a", "Scaled");
  ASSERT_EQ(scaled.size(), 1u);
  EXPECT_EQ(scaled[0].from, 4);
  EXPECT_EQ(scaled[0].to, 3);
  EXPECT_EQ(scaled[0].decision, "Scale");
  const auto after = condition("ScalingLimited");
  EXPECT_TRUE(!after || after->reason != "WriteBurst") << "the gate's reason is gone once it passes";
}

TEST_F(KeyDbPipeline, AQuietScaleDownNamesTheNodeToDrainInTheConfiguredField) {
  start(4);
  set_clients(200);  // 2 read nodes at 100 each: 3 in all
  create_dha();
  reconcile();
  EXPECT_EQ(nodes(), 3);
  const std::string object = world_->pipeline().get(kOrders);
  EXPECT_NE(object.find(R"("drainFirst":["orders-3"])"), std::string::npos) << object;
  const auto scaled = world_->pipeline().event_records("tenant-a", "Scaled");
  ASSERT_EQ(scaled.size(), 1u);
  EXPECT_EQ(scaled[0].from, 4);
  EXPECT_EQ(scaled[0].to, 3);
}

}  // namespace
