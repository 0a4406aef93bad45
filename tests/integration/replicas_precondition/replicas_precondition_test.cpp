// A replica write is made on condition that the target is still the version the decision was
// made on. Without it, a write by someone else between our read (the watch cache) and our
// patch was silently overwritten instead of being seen as the ownership conflict it is.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../postgres_pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;
using Kind = dha::testing::ReconcileOutcome::Kind;

const ObjectRef kDb = dha::integration::kPostgresDb;
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

std::string resource_version_in(const std::string& object_json) {
  const auto at = object_json.find("\"resourceVersion\":\"");
  if (at == std::string::npos) return "";
  const auto start = at + 19;
  return object_json.substr(start, object_json.find('"', start) - start);
}

class ReplicasPrecondition : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = dha::integration::postgres_pipeline_world();
    pipeline_ = &world_->pipeline();
    // 3 replicas (2 read), 500 active connections: the DHA wants more.
    world_->create_healthy_target(dha::integration::healthy_postgres(3));
    world_->vm().import_prometheus(dha::integration::replica_connections("500", dha::testing::unix_millis_now()));
    world_->create_dha("db-dha", R"({"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "behavior": {"policy": "Windowed", "scaleUp": {"stabilizationWindowSeconds": 0}},
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}]})");
  }

  std::vector<dha::testing::AuditEntry> target_patches() {
    std::vector<dha::testing::AuditEntry> out;
    for (const auto& e : world_->api().audit())
      if (e.method == "PATCH" && e.path.find("/postgreses/db") != std::string::npos) out.push_back(e);
    return out;
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
};

TEST_F(ReplicasPrecondition, TheWriteNamesTheVersionItWasDecidedOn) {
  const std::string version = resource_version_in(pipeline_->get(kDb));
  ASSERT_FALSE(version.empty());
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, Kind::kError) << outcome.error;
  ASSERT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 4) << pipeline_->get(kDha);
  const auto patches = target_patches();
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_NE(patches[0].body.find("\"resourceVersion\":\"" + version + "\""), std::string::npos) << patches[0].body;
}

TEST_F(ReplicasPrecondition, ARefusedWriteIsDecidedAgainAndACompetingCountIsAConflict) {
  // The API server refuses the write as a stale version; meanwhile someone sets 5.
  world_->api().inject_fault("PATCH", "/postgreses/db$", 409, 1);
  const auto refused = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_EQ(refused.kind, Kind::kRequeueAfter) << refused.error;
  EXPECT_LE(refused.requeue_after, std::chrono::milliseconds(1000)) << "decided again soon, not at the next sync";
  EXPECT_TRUE(pipeline_->events("tenant-a", "PatchFailed").empty()) << "a stale version is not a failure";
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 3);

  // Decided again: it scales, and records what it applied.
  const auto again = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(again.kind, Kind::kError) << again.error;
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 4);
  // A count written by someone else after that is a conflict, not overwritten.
  pipeline_->merge_patch(kDb, R"({"spec": {"replicas": 6}})");
  pipeline_->clock().advance(std::chrono::seconds(60));
  const auto conflict = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(conflict.kind, Kind::kError) << conflict.error;
  EXPECT_EQ(pipeline_->condition("tenant-a", "db-dha", "ScalingLimited"), "OwnershipConflict");
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 6);
}

}  // namespace
