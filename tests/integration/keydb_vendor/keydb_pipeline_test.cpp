// The vendor's four plugins in the operator's real pipeline through the kit's PipelineWorld:
// its own metric source instead of metrics-vm, each plugin with its own configuration, the count
// at spec.topology.nodes, and the decisions read as the kit's structured Events and conditions
// rather than as prose.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "dha/testing/pipeline_world.hpp"

namespace {

using namespace std::chrono_literals;
using dha::testing::ObjectRef;

const ObjectRef kOrders{"db.example.com", "v1", "keydbs", "tenant-a", "orders"};

class KeyDbPipeline : public ::testing::Test {
 protected:
  void start(std::int64_t nodes) {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {KEYDB_CRD_DIR, DHA_CHART_CRD_DIR};  // the kit serves the DHA CRD from here in-tree
    options.plugin_dirs = {KEYDB_PLUGIN_DIR};
    options.plugins = {"keydb", "keydb-nodes", "keydb-write-burst"};
    options.metrics_plugin = "orgid-metrics";
    options.plugin_config = {{"orgid-metrics", R"({"url": "${metricsUrl}", "orgId": "${namespace}"})"},
                             {"keydb", R"({"minNodes": 2})"},
                             {"keydb-nodes", R"({"drainField": "drainFirst"})"},
                             {"keydb-write-burst", R"({"maxWriteRate": 500})"}};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    world_->create_healthy_target({.object = kOrders, .kind = "KeyDB", .replicas = nodes, .monitor = "keydb-orders",
                                   .monitor_kind = "keydb", .replicas_path = "spec.topology.nodes"});
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
