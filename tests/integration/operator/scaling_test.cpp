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
  const auto settled = wait_for_dha(
      [](const rapidjson::Value& d) {
        return status_int_of(d, "currentReplicas") == 4 && condition_of(d, "AbleToScale") == "Ready";
      },
      20s);
  ASSERT_TRUE(settled.reached) << settled.describe();
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
  EXPECT_EQ(scaled,
            (std::vector<std::string>{
                "scaled Postgres/db replicas 2 -> 3; reason: ReadConnections 250/100 per read replica above target",
                "scaled Postgres/db replicas 3 -> 4; reason: ReadConnections 125/100 per read replica above target"}));
  auto d = dha();  // after 3 s at 4: one read for all that follows
  EXPECT_EQ(kube::string_at(d, {"status", "lastDecision", "kind"}), "NoChange");
  EXPECT_EQ(status_int_of(d, "lastAppliedReplicas"), 4);
  EXPECT_EQ(condition_of(d, "ScalingActive"), "Ready");
  const auto* metrics = kube::find_path(d, {"status", "currentMetrics"});
  ASSERT_TRUE(metrics != nullptr && metrics->IsArray() && metrics->Size() == 1);
  EXPECT_EQ(kube::string_at((*metrics)[0], {"averageValue"}), "83");  // 250 / 3 read replicas, rounded

  const std::string text = metrics_text();
  EXPECT_NE(text.find("db_autoscaler_current_replicas{namespace=\"tenant-a\",name=\"db-dha\"} 4"), std::string::npos)
      << text;
  EXPECT_NE(text.find("db_autoscaler_frozen{namespace=\"tenant-a\",name=\"db-dha\"} 0"), std::string::npos);
  EXPECT_NE(text.find("db_autoscaler_leader 1"), std::string::npos);
}

// The JSON log line of `log` whose message contains `part` ("" when none).
std::string json_line_with(const std::string& log, const std::string& part) {
  std::size_t start = 0;
  for (std::size_t end; (end = log.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = log.substr(start, end - start);
    if (line.rfind("{", 0) == 0 && line.find(part) != std::string::npos) return line;
  }
  return {};
}

// A write refused because the target changed since it was read ends the reconcile early, to
// decide again on a fresh read: that reconcile is counted as result="requeue", the others
// (requeued at their periodic turn) as "success". Its log lines, and the next reconcile's, carry
// the controller and a reconcile ID each, as controller-runtime's do.
TEST_F(ScalingTest, AReconcileThatMustDecideAgainIsCountedAsARequeue) {
  if (cluster_->embedded_server() == nullptr) GTEST_SKIP() << "injects a 409 on the embedded server";
  create_postgres(2);
  create_workload_monitor(2);
  set_load(250);
  create_dha({});
  cluster_->embedded_server()->inject_fault("PATCH", "/postgreses/db$", 409, 1);
  auto& op = start_operator('a', {{"--log-format", "json"}});
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s)) << "not decided again after the refused write";
  const std::string text = metrics_text();
  EXPECT_NE(text.find("db_autoscaler_reconcile_total{result=\"requeue\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("db_autoscaler_reconcile_total{result=\"success\"} "), std::string::npos) << text;
  EXPECT_EQ(text.find("db_autoscaler_reconcile_total{result=\"error\"}"), std::string::npos) << text;

  const std::string log = op.log();
  const std::string again = json_line_with(log, "deciding again");
  const std::string scaled = json_line_with(log, "event Normal Scaled");
  ASSERT_FALSE(again.empty() || scaled.empty()) << log;
  rapidjson::Document a, b;
  a.Parse(again.c_str());
  b.Parse(scaled.c_str());
  ASSERT_FALSE(a.HasParseError() || b.HasParseError()) << again << "\n" << scaled;
  for (const auto* d : {&a, &b}) {
    EXPECT_EQ(kube::string_at(*d, {"logger"}), "db-autoscaler") << again << "\n" << scaled;
    EXPECT_EQ(kube::string_at(*d, {"controller"}), "dha");
    EXPECT_EQ(kube::string_at(*d, {"controllerKind"}), "DatabaseHorizontalAutoscaler");
    EXPECT_EQ(kube::string_at(*d, {"namespace"}), "tenant-a");
    EXPECT_EQ(kube::string_at(*d, {"name"}), "db-dha");
    EXPECT_EQ(kube::string_at(*d, {"reconcileID"}).size(), 36u);
  }
  EXPECT_NE(kube::string_at(a, {"reconcileID"}), kube::string_at(b, {"reconcileID"}))
      << "the reconcile that scaled is not the one that was refused";
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
  // Steady at 4, with a recommendation of 4 recorded for the window to hold.
  const auto steady = wait_for_dha(
      [](const rapidjson::Value& d) {
        return condition_of(d, "AbleToScale") == "Ready" && status_int_of(d, "desiredReplicas") == 4 &&
               recommends(d, 4);
      },
      30s);
  ASSERT_TRUE(steady.reached) << steady.describe();

  set_load(0);  // raw 2: below the floor of 3
  const auto dropped = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s));
  const auto held = std::chrono::steady_clock::now() - dropped;
  EXPECT_GE(held, 4s) << "scaled down before the 6 s window had passed";

  EXPECT_TRUE(holds_for([&] { return replicas() == 3; }, 8s)) << "went below the quorum floor";
  const auto d = dha();  // one read: reason and message of the same cycle
  EXPECT_EQ(condition_of(d, "ScalingLimited"), "QuorumFloor");
  EXPECT_EQ(condition_of(d, "ScalingLimited", "message"), "held at quorum floor 3");
  EXPECT_EQ(target_patches().size(), 1u);
}

// Every wait here is for the state asserted, in one read of the DHA: the operator reads the
// quota and the health object from two watches, so the test's order of writes is not the order
// the operator sees them in, and a status read right after the scale can still be that cycle's.
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
  // The quota controller counts the two new pods. Until the operator has seen that, 4 pods with
  // 1 core used leave room for 2 more (ceiling 6): reporting them available first would let it
  // scale on. So the pods become available only once a cycle at 4 replicas saw the ceiling at 4.
  set_quota_used("2");
  const auto saw_quota = wait_for_dha(
      [](const rapidjson::Value& d) {
        const std::string line = gate_line_of(d, "QuorumVsQuota");
        const std::string ceiling = "tenant quota ceiling 4";
        return status_int_of(d, "currentReplicas") == 4 && line.size() >= ceiling.size() &&
               line.compare(line.size() - ceiling.size(), ceiling.size(), ceiling) == 0;
      },
      20s);
  ASSERT_TRUE(saw_quota.reached) << "no cycle at 4 replicas saw the used quota\n" << saw_quota.describe();
  set_health(4);
  // Converged at 4, the raw 11 is clamped by the quota: all of it in the same version of status.
  const auto clamped = wait_for_dha(
      [](const rapidjson::Value& d) {
        return status_int_of(d, "currentReplicas") == 4 && condition_of(d, "AbleToScale") == "Ready" &&
               condition_of(d, "ScalingLimited") == "QuotaExceeded";
      },
      20s);
  ASSERT_TRUE(clamped.reached) << clamped.describe();
  EXPECT_EQ(condition_of(clamped.dha, "ScalingLimited", "status"), "True");
  EXPECT_EQ(condition_of(clamped.dha, "ScalingLimited", "message"), "clamped to tenant quota ceiling 4");
  EXPECT_EQ(kube::string_at(clamped.dha, {"status", "lastDecision", "kind"}), "NoChange") << clamped.describe();
  EXPECT_TRUE(holds_for([&] { return replicas() == 4; }, 3s));
  EXPECT_EQ(target_patches().size(), 1u);
}

// The operator's quota cache is only as fresh as its watch, and a watch can lose its connection
// without either end being told. Here every ResourceQuota watch goes silent before the quota is
// created: the scale-up must still stop at what the quota leaves, read from the server before the
// patch. (Before, the operator scaled to its maximum on the stale cache.)
TEST_F(ScalingTest, AScaleUpStopsAtAQuotaItsCacheHasNotSeen) {
  auto* server = cluster_->embedded_server();
  if (server == nullptr) GTEST_SKIP() << "needs the embedded API server: silences a watch";
  create_postgres(2);  // t1.micro: 500m per pod
  create_workload_monitor(2);
  set_load(0);  // raw 2: nothing to do yet
  DhaOptions o;
  o.max = 10;
  o.up_step = 10;
  create_dha(o);
  start_operator();
  // The operator's ResourceQuota watch, once open, and every one it opens later.
  ASSERT_TRUE(eventually([&] { return server->silence_watches("resourcequotas", true) >= 1; }, 30s))
      << "the operator never opened a ResourceQuota watch";
  create_quota("2", "1");  // 1 core of headroom = 2 more pods -> ceiling 4
  set_load(1000);          // raw 11
  ASSERT_TRUE(eventually([&] { return replicas() != 2; }, 30s)) << "no scale-up";
  EXPECT_EQ(replicas(), 4) << "scaled past a quota it had not seen through its watch";
  // Single-flight holds it there (the new replicas never become available here).
  EXPECT_TRUE(holds_for([&] { return replicas() == 4; }, 3s));
  EXPECT_EQ(target_patches().size(), 1u);
  // What the tenant sees names the quota (the freeze that follows keeps the limit it was held by).
  const auto clamped = wait_for_dha(
      [](const rapidjson::Value& d) {
        return condition_of(d, "ScalingLimited") == "QuotaExceeded" &&
               condition_of(d, "ScalingLimited", "message") == "clamped to tenant quota ceiling 4";
      },
      20s);
  EXPECT_TRUE(clamped.reached) << "the status does not name the quota that held the scale-up\n" << clamped.describe();
  server->resume_watches("resourcequotas");
}

}  // namespace
}  // namespace dha::optest
