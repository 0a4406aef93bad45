// A metric reading no database can have is an outage of the signal, not a number to scale on:
// a negative connection count (a broken exporter, a counter reset subtracted the wrong way)
// would otherwise push the DHA toward a scale-down.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dha/testing/pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;

const ObjectRef kDb{"apps.cozystack.io", "v1alpha1", "postgreses", "tenant-a", "db"};
const ObjectRef kMonitor{"cozystack.io", "v1alpha1", "workloadmonitors", "tenant-a", "postgres-db"};
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

class MetricValues : public ::testing::Test {
 protected:
  void SetUp() override {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {DHA_SOURCE_DIR "/charts/db-autoscaler/crds"};
    options.plugin_dirs = {POSTGRES_PLUGIN_DIR};
    options.plugins = {"postgres"};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    pipeline_ = &world_->pipeline();
  }

  // A healthy 4-replica database whose read replicas report `connections` in all.
  void world_with(const std::string& connections) {
    pipeline_->create({kDb.group, kDb.version, kDb.plural, "tenant-a", ""},
                      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres",
                          "metadata": {"name": "db", "namespace": "tenant-a"}, "spec": {"replicas": 4}})");
    pipeline_->create({kMonitor.group, kMonitor.version, kMonitor.plural, "tenant-a", ""},
                      R"({"apiVersion": "cozystack.io/v1alpha1", "kind": "WorkloadMonitor",
                          "metadata": {"name": "postgres-db", "namespace": "tenant-a"}, "spec": {"kind": "postgres"}})");
    pipeline_->patch_status(kMonitor, R"({"status": {"operational": true, "availableReplicas": 4}})");
    const std::string t = std::to_string(dha::testing::unix_millis_now());
    world_->vm().import_prometheus(
        R"(cnpg_backends_total{namespace="tenant-a",pod="db-2",state="active"} )" + connections + " " + t + "\n" +
        R"(kube_pod_labels{namespace="tenant-a",pod="db-2",label_apps_cozystack_io_application_name="db",)"
        R"(label_apps_cozystack_io_application_kind="Postgres",label_cnpg_io_instance_role="replica"} 1 )" + t + "\n");
    pipeline_->create({kDha.group, kDha.version, kDha.plural, "tenant-a", ""},
                      R"({"apiVersion": "autoscaling.cozystack.io/v1alpha1", "kind": "DatabaseHorizontalAutoscaler",
                          "metadata": {"name": "db-dha", "namespace": "tenant-a"},
                          "spec": {"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "behavior": {"scaleDown": {"stabilizationWindowSeconds": 0}},
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}]}})");
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
