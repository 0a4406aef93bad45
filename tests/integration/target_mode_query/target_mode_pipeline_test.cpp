// The tutorial's mode-dependent ReadConnections template (tutorial_query.hpp) in the operator's
// real pipeline: observe scopes it and asks a real VictoriaMetrics through metrics-vm, decide
// divides by the read-serving instances the adapter's topology() counts from spec.mode. A standby
// AcmeDB and a multi-primary one in the same namespace, each scaled on its own reading.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dha/testing/pipeline_world.hpp"
#include "tutorial_query.hpp"

namespace {

const char* const kNs = "tenant-a";

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

class TargetModePipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {ACMEDB_CRD_DIR, DHA_CHART_CRD_DIR};  // the kit serves the DHA CRD from here in-tree
    options.plugin_dirs = {TARGET_MODE_PLUGIN_DIR};
    options.plugins = {"acmedb-modes"};
    options.plugin_config = {{"acmedb-modes", "{\"readConnections\": " + json_string(tutorial_query()) + "}"}};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
  }
  void create_acmedb(const std::string& name, const std::string& mode) {
    world_->create_healthy_target({.object = {"db.example.com", "v1", "acmedbs", kNs, name},
                                   .kind = "AcmeDB",
                                   .replicas = 3,
                                   .monitor = "acmedb-" + name,
                                   .monitor_kind = "acmedb"});
    world_->pipeline().merge_patch({"db.example.com", "v1", "acmedbs", kNs, name},
                                   R"({"spec": {"mode": ")" + mode + R"("}})");
    world_->create_dha(name, R"({"targetRef": {"apiGroup": "db.example.com", "kind": "AcmeDB", "name": ")" + name +
                                 R"("}, "minReplicas": 2, "maxReplicas": 6,
        "metrics": [{"type": "ReadConnections", "target": {"averageValue": "10"}}],
        "behavior": {"policy": "Windowed", "scaleUp": {"stabilizationWindowSeconds": 0, "step": 1},
                     "scaleDown": {"stabilizationWindowSeconds": 0, "step": 1}}})");
  }
  // What AcmeDB's exporter publishes for one cluster: its mode, and the clients on each instance.
  void export_cluster(const std::string& name, const std::string& mode, const std::string& roles_and_clients) {
    const std::string t = " " + std::to_string(dha::testing::unix_millis_now()) + "\n";
    std::string lines =
        R"(acmedb_cluster_info{namespace="tenant-a",cluster=")" + name + R"(",mode=")" + mode + "\"} 1" + t;
    int serial = 0;
    for (size_t at = 0; at < roles_and_clients.size();) {
      const auto end = std::min(roles_and_clients.find(' ', at), roles_and_clients.size());
      const std::string item = roles_and_clients.substr(at, end - at);
      const auto colon = item.find(':');
      lines += R"(acmedb_client_connections{namespace="tenant-a",cluster=")" + name + R"(",pod=")" + name + "-" +
               std::to_string(++serial) + R"(",role=")" + item.substr(0, colon) + "\"} " + item.substr(colon + 1) + t;
      at = end + 1;
    }
    world_->vm().import_prometheus(lines);
  }
  dha::testing::EventRecord scaled(const std::string& dha) {
    for (const auto& e : world_->pipeline().event_records(kNs, "Scaled"))
      if (e.dha == dha) return e;
    ADD_FAILURE() << "no Scaled Event for " << dha;
    return {};
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
};

TEST_F(TargetModePipeline, EachModeIsReadAsTheTemplateSaysAndDividedByItsOwnReadInstances) {
  create_acmedb("orders", "standby");
  create_acmedb("ledger", "multi-primary");
  export_cluster("orders", "standby", "primary:50 replica:30 replica:20");
  export_cluster("ledger", "multi-primary", "primary:10 replica:20 replica:30");
  for (const char* name : {"orders", "ledger"}) {
    const auto outcome = world_->pipeline().reconcile(kNs, name);
    ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  }

  const auto orders = scaled("orders");
  EXPECT_EQ(orders.from, 3);
  EXPECT_EQ(orders.to, 4);
  ASSERT_EQ(orders.metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(orders.metrics[0].value, 25) << "standby: the replicas' 30 + 20 over its 2 read replicas";

  const auto ledger = scaled("ledger");
  EXPECT_EQ(ledger.from, 3);
  EXPECT_EQ(ledger.to, 4);
  ASSERT_EQ(ledger.metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(ledger.metrics[0].value, 20) << "multi-primary: 10 + 20 + 30 over all 3 instances";
}

TEST_F(TargetModePipeline, AClusterWhoseExporterSaysNoModeIsNotScaledOnAGuess) {
  create_acmedb("orders", "standby");
  world_->vm().import_prometheus(R"(acmedb_client_connections{namespace="tenant-a",cluster="orders",pod="orders-2",)"
                                 R"(role="replica"} 500 )" +
                                 std::to_string(dha::testing::unix_millis_now()) + "\n");
  const auto outcome = world_->pipeline().reconcile(kNs, "orders");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_TRUE(world_->pipeline().event_records(kNs, "Scaled").empty());
  EXPECT_EQ(world_->pipeline().read_int({"db.example.com", "v1", "acmedbs", kNs, "orders"}, "spec.replicas"), 3);
  EXPECT_EQ(world_->pipeline().condition(kNs, "orders", "AbleToScale", "status"), "False");
  EXPECT_EQ(world_->pipeline().condition(kNs, "orders", "AbleToScale"), "MetricUnavailable")
      << "neither half of the template answers: no reading, rather than the replicas' 500 taken on a guess";
}

}  // namespace
