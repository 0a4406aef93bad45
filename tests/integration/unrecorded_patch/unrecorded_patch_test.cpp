// The chaos soak's liveness finding: the operator patched replicas 3 -> 4 and was killed before
// its status write, so status still says lastAppliedReplicas 3. The next leader saw 4, called it
// a competing writer's and stayed in OwnershipConflict with itself for good. The patch now
// announces its count on the target (autoscaling.cozystack.io/applied-replicas, with the
// marker), which the next reconcile recognises; a count nobody announced is still a conflict.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../postgres_pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;

const ObjectRef kDb = dha::integration::kPostgresDb;
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

class UnrecordedPatch : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = dha::integration::postgres_pipeline_world();
    pipeline_ = &world_->pipeline();
    vm_ = &world_->vm();
  }

  // The world the killed leader left: replicas 4 carrying our marker and `announced` as the
  // applied count, running and healthy, a load that wants exactly 4, and a DHA status that
  // still says the last count applied was 3.
  void world_after_kill(const std::string& announced) {
    world_->create_healthy_target(dha::integration::healthy_postgres(
        4, R"({"autoscaling.cozystack.io/managed-by": "db-dha", "autoscaling.cozystack.io/applied-replicas": ")" +
               announced + R"("})"));
    vm_->import_prometheus(  // 300 active connections on the replicas: 3 read replicas + the primary
        dha::integration::replica_connections("300", dha::testing::unix_millis_now()));
    world_->create_dha("db-dha", dha::integration::db_dha_spec());
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
