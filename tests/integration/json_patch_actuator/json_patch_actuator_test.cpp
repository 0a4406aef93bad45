// ABI dha.actuator/1 lets an actuator plan RFC 6902 JSON patches ("patchType": "json"). The
// operator's real pipeline (the test kit's Pipeline) carries them out: a guarded patch scales
// the target, and when the count moved under it, the API server refuses the write and the
// reconcile fails rather than overwrite the newer value.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "dha/testing/pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;

const ObjectRef kOrders{"db.example.com", "v1", "acmedbs", "tenant-a", "orders"};
const ObjectRef kMonitor{"cozystack.io", "v1alpha1", "workloadmonitors", "tenant-a", "acmedb-orders"};

class JsonPatchActuator : public ::testing::Test {
 protected:
  void SetUp() override {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {DHA_SOURCE_DIR "/charts/db-autoscaler/crds", DHA_SOURCE_DIR "/sdk/template/crds"};
    options.plugin_dirs = {GUARDED_PLUGIN_DIR};
    options.plugins = {"guarded-acmedb"};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    pipeline_ = &world_->pipeline();
    api_ = &world_->api();
    pipeline_->create({kOrders.group, kOrders.version, kOrders.plural, "tenant-a", ""},
                      R"({"apiVersion": "db.example.com/v1", "kind": "AcmeDB",
                          "metadata": {"name": "orders", "namespace": "tenant-a"}, "spec": {"replicas": 3}})");
    pipeline_->create({kMonitor.group, kMonitor.version, kMonitor.plural, "tenant-a", ""},
                      R"({"apiVersion": "cozystack.io/v1alpha1", "kind": "WorkloadMonitor",
                          "metadata": {"name": "acmedb-orders", "namespace": "tenant-a"}, "spec": {"kind": "acmedb"}})");
    pipeline_->patch_status(kMonitor, R"({"status": {"operational": true, "availableReplicas": 3}})");
    // 250 connections over 100 per read replica: 3 read replicas + the primary.
    world_->vm().import_prometheus(R"(acmedb_client_connections{namespace="tenant-a",cluster="orders"} 250 )" +
                                   std::to_string(dha::testing::unix_millis_now()) + "\n");
    pipeline_->create({"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", ""},
                      R"({"apiVersion": "autoscaling.cozystack.io/v1alpha1", "kind": "DatabaseHorizontalAutoscaler",
                          "metadata": {"name": "orders", "namespace": "tenant-a"},
                          "spec": {"targetRef": {"apiGroup": "db.example.com", "kind": "AcmeDB", "name": "orders"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}],
                                   "behavior": {"scaleUp": {"stabilizationWindowSeconds": 0, "step": 1}}}})");
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
  dha::testing::ApiServer* api_ = nullptr;
};

TEST_F(JsonPatchActuator, AGuardedPatchScalesTheTarget) {
  const auto outcome = pipeline_->reconcile("tenant-a", "orders");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline_->read_int(kOrders, "spec.replicas"), 4);
  bool json_patch_seen = false;
  for (const auto& e : api_->audit()) {
    if (e.method == "PATCH" && e.path.find("/acmedbs/orders") != std::string::npos) {
      EXPECT_EQ(e.content_type, "application/json-patch+json");
      EXPECT_EQ(e.status, 200);
      json_patch_seen = true;
    }
  }
  EXPECT_TRUE(json_patch_seen);
}

TEST_F(JsonPatchActuator, TheGuardRefusesACountThatMovedInBetween) {
  // The operator's PATCH is held for 3 s on its way in; 1 s into it someone else scales to 5
  // (their PATCH is served at once: the delay applied to one request only). The operator read
  // the earlier version, so its write fails on the server (the resourceVersion test comes
  // first): 5 stays, nothing is reported as failed, and the decision is made again at once
  // from a fresh read, where 5 is someone else's count.
  api_->inject_delay("PATCH", "/acmedbs/orders$", std::chrono::seconds(3), 1);
  std::thread other_writer([&] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    pipeline_->merge_patch(kOrders, R"({"spec": {"replicas": 5}})");
  });
  const auto outcome = pipeline_->reconcile("tenant-a", "orders");
  other_writer.join();
  ASSERT_EQ(outcome.kind, dha::testing::ReconcileOutcome::Kind::kRequeueAfter) << outcome.error;
  EXPECT_LE(outcome.requeue_after, std::chrono::milliseconds(1000));
  EXPECT_EQ(pipeline_->read_int(kOrders, "spec.replicas"), 5);
  EXPECT_TRUE(pipeline_->events("tenant-a", "PatchFailed").empty());
  EXPECT_TRUE(pipeline_->events("tenant-a", "Scaled").empty());
  const auto again = pipeline_->reconcile("tenant-a", "orders");
  EXPECT_NE(again.kind, dha::testing::ReconcileOutcome::Kind::kError) << again.error;
  EXPECT_EQ(pipeline_->read_int(kOrders, "spec.replicas"), 5);
  EXPECT_TRUE(pipeline_->events("tenant-a", "Scaled").empty());
}

}  // namespace
