// Scaling behaviour end to end: step-by-step scale-up, the stabilization window, the quorum
// floor, the quota ceiling from a real ResourceQuota.
#include <fmt/format.h>

#include "dha/kube/json.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

using ScalingTest = OperatorWorld;

std::vector<std::string> patch_bodies(const std::vector<testing::AuditEntry>& patches) {
  std::vector<std::string> out;
  for (const auto& p : patches) out.push_back(p.body);
  return out;
}

TEST_F(ScalingTest, ScalesUpTwoToThreeToFourOneStepAtATimeWaitingForConvergence) {
  create_postgres(2);
  create_workload_monitor(2);
  set_load(250);  // 250 connections / target 100 -> 3 read replicas + primary = 4
  create_dha({});
  start_operator();

  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s)) << "no scale to 3";
  EXPECT_EQ(marker(), kDha);
  // Single-flight: nothing more until the engine operator reports the new replica available.
  EXPECT_TRUE(holds_for([&] { return replicas() == 3; }, 3s));
  EXPECT_TRUE(eventually([&] { return condition("AbleToScale") == "ScaleInFlight"; }, 10s));

  set_health(3);
  ASSERT_TRUE(eventually([&] { return replicas() == 4; }, 30s)) << "no scale to 4";
  set_health(4);
  ASSERT_TRUE(eventually([&] { return status_int("currentReplicas") == 4 && condition("AbleToScale") == "Ready"; }, 20s));
  EXPECT_TRUE(holds_for([&] { return replicas() == 4; }, 3s)) << "must hold at the raw recommendation";

  const auto patches = target_patches();
  ASSERT_EQ(patches.size(), 2u) << ::testing::PrintToString(patch_bodies(patches));
  for (const auto& p : patches) {
    EXPECT_EQ(p.username, kOperatorA);
    // kube-apiserver's audit log does not record the content type.
    if (cluster_->backend() == testing::KubeBackend::embedded) {
      EXPECT_EQ(p.content_type, "application/merge-patch+json");
    }
    EXPECT_NE(p.query.find("fieldManager=db-autoscaler"), std::string::npos) << p.query;
  }
  EXPECT_NE(patches[0].body.find("\"replicas\":3"), std::string::npos);
  EXPECT_NE(patches[1].body.find("\"replicas\":4"), std::string::npos);
  EXPECT_NE(patches[0].body.find("\"autoscaling.cozystack.io/managed-by\":\"db-dha\""), std::string::npos);

  const auto scaled = events("Scaled");
  // Each says why, with the numbers: 250 connections on 1 read replica, then on 2.
  EXPECT_EQ(scaled, (std::vector<std::string>{
                        "scaled Postgres/db replicas 2 -> 3; reason: ReadConnections 250/100 per read replica above target",
                        "scaled Postgres/db replicas 3 -> 4; reason: ReadConnections 125/100 per read replica above target"}));
  auto d = dha();
  EXPECT_EQ(kube::string_at(d, {"status", "lastDecision", "kind"}), "NoChange");
  EXPECT_EQ(status_int("lastAppliedReplicas"), 4);
  EXPECT_EQ(condition("ScalingActive"), "Ready");
  const auto* metrics = kube::find_path(d, {"status", "currentMetrics"});
  ASSERT_TRUE(metrics != nullptr && metrics->IsArray() && metrics->Size() == 1);
  EXPECT_EQ(kube::string_at((*metrics)[0], {"averageValue"}), "83");  // 250 / 3 read replicas, rounded

  const std::string text = metrics_text();
  EXPECT_NE(text.find("db_autoscaler_current_replicas{namespace=\"tenant-a\",name=\"db-dha\"} 4"), std::string::npos)
      << text;
  EXPECT_NE(text.find("db_autoscaler_frozen{namespace=\"tenant-a\",name=\"db-dha\"} 0"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_leader 1"), std::string::npos);
}

TEST_F(ScalingTest, HoldsInTheScaleDownWindowThenStepsDownToTheQuorumFloorAndNoFurther) {
  create_postgres(4, /*max_sync_replicas=*/2);  // CNPG quorum floor: maxSyncReplicas + 1 = 3
  create_workload_monitor(4);
  auto_converge(true);
  set_load(300);  // raw 4 == current: steady
  DhaOptions o;
  o.down_window = 6;
  create_dha(o);
  start_operator();
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") == "Ready" && status_int("desiredReplicas") == 4; }, 30s));
  // Let a few recommendations of 4 into the window.
  std::this_thread::sleep_for(2s);

  set_load(0);  // raw 2: below the floor of 3
  const auto dropped = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s));
  const auto held = std::chrono::steady_clock::now() - dropped;
  EXPECT_GE(held, 4s) << "scaled down before the 6 s window had passed";

  EXPECT_TRUE(holds_for([&] { return replicas() == 3; }, 8s)) << "went below the quorum floor";
  EXPECT_EQ(condition("ScalingLimited"), "QuorumFloor");
  EXPECT_EQ(condition("ScalingLimited", "message"), "held at quorum floor 3");
  EXPECT_EQ(target_patches().size(), 1u);
}

TEST_F(ScalingTest, QuotaCeilingFromARealResourceQuotaClampsTheScaleUp) {
  create_postgres(2);  // t1.micro: 500m per pod
  create_workload_monitor(2);
  create_quota("2", "1");  // 1 core of headroom = 2 more pods -> ceiling 4
  set_load(1000);          // raw 11
  DhaOptions o;
  o.max = 10;
  o.up_step = 10;
  create_dha(o);
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 4; }, 30s));
  // The quota controller counts the two new pods, then they become available.
  set_quota_used("2");
  set_health(4);
  ASSERT_TRUE(eventually([&] { return condition("ScalingLimited") == "QuotaExceeded"; }, 20s));
  EXPECT_EQ(condition("ScalingLimited", "message"), "clamped to tenant quota ceiling 4");
  EXPECT_TRUE(holds_for([&] { return replicas() == 4; }, 3s));
  EXPECT_EQ(target_patches().size(), 1u);
}

}  // namespace
}  // namespace dha::optest
