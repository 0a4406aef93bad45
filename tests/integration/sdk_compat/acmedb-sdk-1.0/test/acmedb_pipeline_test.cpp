// "With this load, AcmeDB makes the operator scale 3 -> 4": the operator's real decision
// pipeline (the kit's Pipeline: observe -> decide -> gates -> act) with acmedb.so loaded from the
// build directory, the SDK's embedded API server serving the AcmeDB and DHA CRDs, and a real
// VictoriaMetrics holding the load. The clock is manual: windows pass in no wall time.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "dha/testing/pipeline_world.hpp"

namespace {

using namespace std::chrono_literals;
using dha::testing::ObjectRef;

const ObjectRef kOrders{"db.example.com", "v1", "acmedbs", "tenant-a", "orders"};
const ObjectRef kMonitor{"cozystack.io", "v1alpha1", "workloadmonitors", "tenant-a", "acmedb-orders"};

class AcmeDbPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    // The API server serving the AcmeDB kind (and the kit's DHA and WorkloadMonitor kinds), a
    // real VictoriaMetrics, and the pipeline with acmedb.so from the build directory.
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {ACMEDB_CRD_DIR};
    options.plugin_dirs = {ACMEDB_PLUGIN_DIR};
    options.plugins = {"acmedb"};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    pipeline_ = &world_->pipeline();
    vm_ = &world_->vm();
    pipeline_->create({kOrders.group, kOrders.version, kOrders.plural, "tenant-a", ""},
                      R"({"apiVersion": "db.example.com/v1", "kind": "AcmeDB",
                          "metadata": {"name": "orders", "namespace": "tenant-a"}, "spec": {"replicas": 3}})");
    pipeline_->create({kMonitor.group, kMonitor.version, kMonitor.plural, "tenant-a", ""},
                      R"({"apiVersion": "cozystack.io/v1alpha1", "kind": "WorkloadMonitor",
                          "metadata": {"name": "acmedb-orders", "namespace": "tenant-a"}, "spec": {"kind": "acmedb"}})");
    pipeline_->patch_status(kMonitor, R"({"status": {"operational": true, "availableReplicas": 3}})");
  }

  // Client connections on the replicas right now, as AcmeDB's exporter reports them (split over
  // the two replicas: the adapter's query sums them).
  void set_load(double connections) {
    const auto t = std::to_string(dha::testing::unix_millis_now());
    vm_->import_prometheus(
        "acmedb_client_connections{namespace=\"tenant-a\",cluster=\"orders\",role=\"replica\",pod=\"orders-1\"} " +
        std::to_string(connections / 2) + " " + t + "\n" +
        "acmedb_client_connections{namespace=\"tenant-a\",cluster=\"orders\",role=\"replica\",pod=\"orders-2\"} " +
        std::to_string(connections / 2) + " " + t + "\n");
  }
  // A DHA on AcmeDB/orders: ReadConnections, 100 per read replica, replicas 2..6.
  void create_dha(int up_window_seconds) {
    pipeline_->create({"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", ""},
                      R"({"apiVersion": "autoscaling.cozystack.io/v1alpha1", "kind": "DatabaseHorizontalAutoscaler",
                          "metadata": {"name": "orders", "namespace": "tenant-a"},
                          "spec": {"targetRef": {"apiGroup": "db.example.com", "kind": "AcmeDB", "name": "orders"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}],
                                   "behavior": {"scaleUp": {"stabilizationWindowSeconds": )" +
                          std::to_string(up_window_seconds) + R"(, "step": 1},
                                                "scaleDown": {"stabilizationWindowSeconds": 600, "step": 1}}}})");
  }
  // One reconcile; a failed one fails the test with the operator's message.
  void reconcile() {
    const auto outcome = pipeline_->reconcile("tenant-a", "orders");
    ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  }
  std::int64_t replicas() { return pipeline_->read_int(kOrders, "spec.replicas").value_or(-1); }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
  dha::testing::VictoriaMetrics* vm_ = nullptr;
};

TEST_F(AcmeDbPipeline, WithThisLoadAcmeDbScalesThreeToFour) {
  set_load(250);  // 250 / 100 per read replica -> 3 read replicas + the primary = 4
  create_dha(0);
  reconcile();
  EXPECT_EQ(replicas(), 4);
  EXPECT_EQ(pipeline_->events("tenant-a", "Scaled"), std::vector<std::string>{"scaled AcmeDB/orders replicas 3 -> 4"});
}

TEST_F(AcmeDbPipeline, LoadUnderTargetKeepsThreeReplicas) {
  set_load(150);  // 2 read replicas suffice: 3 in all, what is running
  create_dha(0);
  for (int cycle = 0; cycle < 3; ++cycle) {
    reconcile();
    pipeline_->clock().advance(60s);
  }
  EXPECT_EQ(replicas(), 3);
  EXPECT_TRUE(pipeline_->events("tenant-a", "Scaled").empty());
  EXPECT_EQ(pipeline_->condition("tenant-a", "orders", "ScalingActive", "status"), "True");
}

TEST_F(AcmeDbPipeline, TheUpWindowHoldsASpikeUntilItHasLastedSixtySeconds) {
  set_load(150);
  create_dha(60);
  reconcile();  // recommends 3: the window remembers it
  set_load(250);
  pipeline_->clock().advance(10s);
  reconcile();
  EXPECT_EQ(replicas(), 3) << "a 10 s old recommendation of 3 is inside the 60 s window";
  pipeline_->clock().advance(60s);
  reconcile();
  EXPECT_EQ(replicas(), 4) << "the lower recommendation has left the window";
}

}  // namespace
