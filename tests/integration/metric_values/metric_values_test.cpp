// A metric reading no database can have is an outage of the signal, not a number to scale on:
// a negative connection count (a broken exporter, a counter reset subtracted the wrong way)
// would otherwise push the DHA toward a scale-down.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "../postgres_pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;

const ObjectRef kDb = dha::integration::kPostgresDb;
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

class MetricValues : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = dha::integration::postgres_pipeline_world();
    pipeline_ = &world_->pipeline();
  }

  // A healthy 4-replica database whose read replicas report `connections` in all.
  void world_with(const std::string& connections) {
    world_->create_healthy_target(dha::integration::healthy_postgres(4));
    world_->vm().import_prometheus(dha::integration::replica_connections(connections, dha::testing::unix_millis_now()));
    world_->create_dha("db-dha", R"({"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "behavior": {"scaleDown": {"stabilizationWindowSeconds": 0}},
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}]})");
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
};

TEST_F(MetricValues, ANegativeReadingFreezesWithMetricUnavailableNamingIt) {
  world_with("-300");
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline_->condition("tenant-a", "db-dha", "AbleToScale"), "MetricUnavailable");
  const std::string dha = pipeline_->get(kDha);
  EXPECT_NE(dha.find("-300, a negative value"), std::string::npos) << dha;
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 4) << "scaled on a negative reading";
}

TEST_F(MetricValues, AnAbsurdlyLargeReadingFreezesToo) {
  world_with("5e15");
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline_->condition("tenant-a", "db-dha", "AbleToScale"), "MetricUnavailable");
  EXPECT_NE(pipeline_->get(kDha).find("beyond any plausible reading"), std::string::npos);
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 4);
}

TEST_F(MetricValues, AnOrdinaryReadingStillScales) {
  world_with("100");  // 100 connections on 3 read replicas: fewer are needed
  const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_NE(pipeline_->condition("tenant-a", "db-dha", "AbleToScale"), "MetricUnavailable");
}

}  // namespace
