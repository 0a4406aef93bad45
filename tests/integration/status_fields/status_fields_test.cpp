// The status holds the decision state (recommendation history, last applied count, in-flight
// anchor, backoff). One unreadable field used to reset all of it, which could allow an
// immediate scale-down; now the DHA freezes, names the field, and keeps the rest.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

#include "../postgres_pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;
using Kind = dha::testing::ReconcileOutcome::Kind;

const ObjectRef kDb = dha::integration::kPostgresDb;
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

class StatusFields : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = dha::integration::postgres_pipeline_world();
    pipeline_ = &world_->pipeline();
    // 4 replicas with almost no load: without its history the DHA would scale down at once.
    world_->create_healthy_target(dha::integration::healthy_postgres(4));
    world_->vm().import_prometheus(dha::integration::replica_connections("10", dha::testing::unix_millis_now()));
    world_->create_dha("db-dha", R"({"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}]})");
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
};

TEST_F(StatusFields, AnUnreadableFieldFreezesNamesItAndKeepsTheRest) {
  pipeline_->patch_status(kDha, R"({"status": {"currentReplicas": 4, "desiredReplicas": 4, "lastAppliedReplicas": 4,
                                               "lastConvergedReplicas": 4,
                                               "backoff": {"replicas": 3, "until": "not a time"}}})");
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline_->condition("tenant-a", "db-dha", "ScalingActive"), "StatusUnreadable");
  const std::string dha = pipeline_->get(kDha);
  EXPECT_NE(dha.find("status.backoff.until"), std::string::npos) << dha;
  // What could be read is kept, and the unreadable field is left as it was for a human to see.
  EXPECT_EQ(pipeline_->read_int(kDha, "status.lastAppliedReplicas"), 4);
  EXPECT_EQ(pipeline_->read_int(kDha, "status.lastConvergedReplicas"), 4);
  EXPECT_NE(dha.find("\"until\":\"not a time\""), std::string::npos) << dha;
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 4) << "scaled on a state it could not read";

  // Still frozen on the next cycle; fixed, it scales again.
  pipeline_->clock().advance(std::chrono::seconds(60));
  (void)pipeline_->reconcile("tenant-a", "db-dha");
  EXPECT_EQ(pipeline_->condition("tenant-a", "db-dha", "ScalingActive"), "StatusUnreadable");
  pipeline_->patch_status(kDha, R"({"status": {"backoff": null}})");
  (void)pipeline_->reconcile("tenant-a", "db-dha");
  EXPECT_NE(pipeline_->condition("tenant-a", "db-dha", "ScalingActive"), "StatusUnreadable");
}

// After a 409 on the status write the fresh status is looked at: written by someone else in
// between (another leader, before this one was fenced), it is not overwritten with what this
// reconcile decided on its older reading.
TEST_F(StatusFields, AStatusSomeoneElseWroteMeanwhileIsNotOverwritten) {
  pipeline_->patch_status(kDha, R"({"status": {"currentReplicas": 4, "desiredReplicas": 4, "lastAppliedReplicas": 4,
                                               "lastConvergedReplicas": 4}})");
  world_->api().inject_delay("PATCH", "/databasehorizontalautoscalers/db-dha/status$", std::chrono::seconds(2), 1);
  std::thread other_writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    pipeline_->patch_status(kDha, R"({"status": {"desiredReplicas": 5, "lastAppliedReplicas": 5}})");
  });
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  other_writer.join();
  ASSERT_NE(outcome.kind, Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline_->read_int(kDha, "status.desiredReplicas"), 5) << pipeline_->get(kDha);
  EXPECT_EQ(pipeline_->read_int(kDha, "status.lastAppliedReplicas"), 5);
}

}  // namespace
