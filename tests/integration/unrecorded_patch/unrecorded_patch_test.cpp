// The chaos soak's liveness finding: the operator patched replicas 3 -> 4 and was killed before
// its status write, so status still says lastAppliedReplicas 3. The next leader saw 4, called it
// a competing writer's and stayed in OwnershipConflict with itself for good. The patch now
// announces its count on the target (autoscaling.cozystack.io/applied-replicas, with the
// marker), which the next reconcile recognises; a count nobody announced is still a conflict.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dha/testing/pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;

const ObjectRef kDb{"apps.cozystack.io", "v1alpha1", "postgreses", "tenant-a", "db"};
const ObjectRef kMonitor{"cozystack.io", "v1alpha1", "workloadmonitors", "tenant-a", "postgres-db"};
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

class UnrecordedPatch : public ::testing::Test {
 protected:
  void SetUp() override {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {DHA_SOURCE_DIR "/charts/db-autoscaler/crds"};
    options.plugin_dirs = {POSTGRES_PLUGIN_DIR};
    options.plugins = {"postgres"};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    pipeline_ = &world_->pipeline();
    vm_ = &world_->vm();
  }

  // The world the killed leader left: replicas 4 carrying our marker and `announced` as the
  // applied count, running and healthy, a load that wants exactly 4, and a DHA status that
  // still says the last count applied was 3.
  void world_after_kill(const std::string& announced) {
    pipeline_->create({kDb.group, kDb.version, kDb.plural, "tenant-a", ""},
                      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres",
                          "metadata": {"name": "db", "namespace": "tenant-a", "annotations": {
                            "autoscaling.cozystack.io/managed-by": "db-dha",
                            "autoscaling.cozystack.io/applied-replicas": ")" + announced + R"("}},
                          "spec": {"replicas": 4}})");
    pipeline_->create({kMonitor.group, kMonitor.version, kMonitor.plural, "tenant-a", ""},
                      R"({"apiVersion": "cozystack.io/v1alpha1", "kind": "WorkloadMonitor",
                          "metadata": {"name": "postgres-db", "namespace": "tenant-a"}, "spec": {"kind": "postgres"}})");
    pipeline_->patch_status(kMonitor, R"({"status": {"operational": true, "availableReplicas": 4}})");
    const std::string t = std::to_string(dha::testing::unix_millis_now());
    vm_->import_prometheus(  // 300 active connections on the replicas: 3 read replicas + the primary
        R"(cnpg_backends_total{namespace="tenant-a",pod="db-2",state="active"} 300 )" + t + "\n" +
        R"(kube_pod_labels{namespace="tenant-a",pod="db-2",label_apps_cozystack_io_application_name="db",)"
        R"(label_apps_cozystack_io_application_kind="Postgres",label_cnpg_io_instance_role="replica"} 1 )" + t + "\n");
    pipeline_->create({kDha.group, kDha.version, kDha.plural, "tenant-a", ""},
                      R"({"apiVersion": "autoscaling.cozystack.io/v1alpha1", "kind": "DatabaseHorizontalAutoscaler",
                          "metadata": {"name": "db-dha", "namespace": "tenant-a"},
                          "spec": {"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}]}})");
    pipeline_->patch_status(kDha, R"({"status": {"currentReplicas": 3, "desiredReplicas": 4, "lastAppliedReplicas": 3,
                                                  "lastConvergedReplicas": 3}})");
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
  dha::testing::VictoriaMetrics* vm_ = nullptr;
};

TEST_F(UnrecordedPatch, OurAnnouncedCountIsOursNotAConflict) {
  world_after_kill("4");
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_NE(pipeline_->condition("tenant-a", "db-dha", "ScalingLimited"), "OwnershipConflict");
  EXPECT_TRUE(pipeline_->events("tenant-a", "OwnershipConflict").empty());
  EXPECT_EQ(pipeline_->read_int(kDha, "status.lastAppliedReplicas"), 4);
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 4);
}

TEST_F(UnrecordedPatch, ACountNobodyAnnouncedIsStillAConflict) {
  world_after_kill("5");  // our last announced write was 5; someone else set 4
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline_->condition("tenant-a", "db-dha", "ScalingLimited"), "OwnershipConflict");
  EXPECT_EQ(pipeline_->events("tenant-a", "OwnershipConflict").size(), 1u);
  EXPECT_EQ(pipeline_->read_int(kDha, "status.lastAppliedReplicas"), 3);
}

}  // namespace
