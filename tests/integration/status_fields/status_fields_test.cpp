// The status holds the decision state (recommendation history, last applied count, in-flight
// anchor, backoff). One unreadable field used to reset all of it, which could allow an
// immediate scale-down; now the DHA freezes, names the field, and keeps the rest.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

#include "dha/testing/pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;
using Kind = dha::testing::ReconcileOutcome::Kind;

const ObjectRef kDb{"apps.cozystack.io", "v1alpha1", "postgreses", "tenant-a", "db"};
const ObjectRef kMonitor{"cozystack.io", "v1alpha1", "workloadmonitors", "tenant-a", "postgres-db"};
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

class StatusFields : public ::testing::Test {
 protected:
  void SetUp() override {
    dha::testing::PipelineWorldOptions options;
    options.crd_dirs = {DHA_SOURCE_DIR "/charts/db-autoscaler/crds"};
    options.plugin_dirs = {POSTGRES_PLUGIN_DIR};
    options.plugins = {"postgres"};
    world_ = std::make_unique<dha::testing::PipelineWorld>(options);
    pipeline_ = &world_->pipeline();
    // 4 replicas with almost no load: without its history the DHA would scale down at once.
    pipeline_->create({kDb.group, kDb.version, kDb.plural, "tenant-a", ""},
                      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Postgres",
                          "metadata": {"name": "db", "namespace": "tenant-a"}, "spec": {"replicas": 4}})");
    pipeline_->create({kMonitor.group, kMonitor.version, kMonitor.plural, "tenant-a", ""},
                      R"({"apiVersion": "cozystack.io/v1alpha1", "kind": "WorkloadMonitor",
                          "metadata": {"name": "postgres-db", "namespace": "tenant-a"}, "spec": {"kind": "postgres"}})");
    pipeline_->patch_status(kMonitor, R"({"status": {"operational": true, "availableReplicas": 4}})");
    const std::string t = std::to_string(dha::testing::unix_millis_now());
    world_->vm().import_prometheus(
        R"(cnpg_backends_total{namespace="tenant-a",pod="db-2",state="active"} 10 )" + t + "\n" +
        R"(kube_pod_labels{namespace="tenant-a",pod="db-2",label_apps_cozystack_io_application_name="db",)"
        R"(label_apps_cozystack_io_application_kind="Postgres",label_cnpg_io_instance_role="replica"} 1 )" + t + "\n");
    pipeline_->create({kDha.group, kDha.version, kDha.plural, "tenant-a", ""},
                      R"({"apiVersion": "autoscaling.cozystack.io/v1alpha1", "kind": "DatabaseHorizontalAutoscaler",
                          "metadata": {"name": "db-dha", "namespace": "tenant-a"},
                          "spec": {"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 6,
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}]}})");
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
  world_->api().inject_delay("PUT", "/databasehorizontalautoscalers/db-dha/status$", std::chrono::seconds(2), 1);
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
