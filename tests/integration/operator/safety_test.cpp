// The guardrails end to end: metric outage, lag brake, single-flight and rollback, ownership
// conflict, dry-run, unknown kinds.
#include <fmt/format.h>

#include "dha/kube/json.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

using SafetyTest = OperatorWorld;

TEST_F(SafetyTest, FreezesOnAMetricOutageInsteadOfScaling) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(200);  // raw 3 == current
  create_dha({});
  start_operator();
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") == "Ready"; }, 30s));

  vm_->stop();  // the metrics backend goes away
  const auto frozen = wait_for_dha(
      [](const rapidjson::Value& d) { return condition_of(d, "AbleToScale") == "MetricUnavailable"; }, 20s);
  ASSERT_TRUE(frozen.reached) << frozen.describe();
  EXPECT_EQ(condition_of(frozen.dha, "AbleToScale", "status"), "False");
  // The freeze names the query that failed and how.
  EXPECT_EQ(
      condition_of(frozen.dha, "AbleToScale", "message")
          .rfind("metric unavailable; refusing to scale blind: query for ReadConnections failed (unavailable): ", 0),
      0u)
      << frozen.describe();
  EXPECT_TRUE(eventually(
      [&] {
        return metrics_text().find("db_autoscaler_frozen{namespace=\"tenant-a\",name=\"db-dha\"} 1") !=
               std::string::npos;
      },
      10s));
  EXPECT_TRUE(holds_for([&] { return replicas() == 3; }, 2s));
  EXPECT_TRUE(target_patches().empty());
  EXPECT_EQ(kube::string_at(dha(), {"status", "lastDecision", "kind"}), "Freeze");
}

TEST_F(SafetyTest, LagBrakeFreezesWhileWritesAreActive) {
  create_postgres(2);
  create_workload_monitor(2);
  set_load(250);
  set_lag(60, /*writes=*/true);
  create_dha({});
  start_operator();
  const auto braked =
      wait_for_dha([](const rapidjson::Value& d) { return condition_of(d, "AbleToScale") == "ReplicationLag"; }, 30s);
  ASSERT_TRUE(braked.reached) << braked.describe();
  EXPECT_EQ(condition_of(braked.dha, "AbleToScale", "message"),
            "replication lag above threshold with active writes (60s > 30s)");
  EXPECT_TRUE(holds_for([&] { return replicas() == 2; }, 2s));
  EXPECT_TRUE(target_patches().empty());
}

TEST_F(SafetyTest, LagWithoutWritesDoesNotBrake) {
  create_postgres(2);
  create_workload_monitor(2);
  set_load(150);  // raw 3
  set_lag(60, /*writes=*/false);
  create_dha({});
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s)) << "the lag brake held without writes";
  set_health(3);
  // At rest the trace shows the brake saw the lag and let it pass for want of writes.
  EXPECT_TRUE(eventually(
      [&] {
        auto d = dha();
        const auto* gates = kube::find_path(d, {"status", "lastDecision", "gates"});
        if (gates == nullptr || !gates->IsArray()) return false;
        const std::string passed = ", Pass: replication lag 60s > 30s but no writes";
        for (const auto& line : gates->GetArray()) {
          const std::string text = line.IsString() ? line.GetString() : "";
          if (text.rfind("LagBrake: ", 0) == 0)
            return text.size() > passed.size() && text.compare(text.size() - passed.size(), passed.size(), passed) == 0;
        }
        return false;
      },
      10s))
      << kube::to_json(dha());
}

TEST_F(SafetyTest, SingleFlightThenRollbackAfterTheDeadline) {
  create_postgres(2);
  create_workload_monitor(2);
  set_load(150);  // raw 3
  DhaOptions o;
  o.deadline = 6;
  create_dha(o);
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s));
  // The new replica never becomes available: in flight, then rolled back after 6 s.
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") == "ScaleInFlight"; }, 10s));
  ASSERT_TRUE(eventually([&] { return replicas() == 2; }, 20s)) << "no rollback";
  EXPECT_EQ(
      events("Scaled"),
      (std::vector<std::string>{"scaled Postgres/db replicas 2 -> 3; reason: ReadConnections 150/100 per read replica "
                                "above target"}));
  // A rollback is a Warning of its own, with the reason.
  ASSERT_EQ(events("Rollback").size(), 1u);
  EXPECT_EQ(events("Rollback")[0].rfind("rolled back Postgres/db replicas 3 -> 2; reason: ", 0), 0u)
      << events("Rollback")[0];
  set_health(2);
  // The failed size is backed off: no immediate retry of 3 although the load still asks for it.
  const auto backed_off = wait_for_dha(
      [](const rapidjson::Value& d) {
        return condition_of(d, "AbleToScale") == "StuckScaling" &&
               condition_of(d, "AbleToScale", "message").find("backing off re-attempt of 3 replicas until ") == 0;
      },
      10s);
  ASSERT_TRUE(backed_off.reached) << backed_off.describe();
  const auto* backoff = kube::find_path(backed_off.dha, {"status", "backoff", "replicas"});
  ASSERT_TRUE(backoff != nullptr && backoff->IsInt()) << backed_off.describe();
  EXPECT_EQ(backoff->GetInt(), 3);
  EXPECT_TRUE(holds_for([&] { return replicas() == 2; }, 2s));
  EXPECT_EQ(target_patches().size(), 2u);
}

TEST_F(SafetyTest, OwnershipConflictWhenAnotherIdentityChangesReplicas) {
  create_postgres(2);
  create_workload_monitor(2);
  auto_converge(true);
  set_load(150);  // raw 3
  create_dha({});
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 3 && status_int("lastAppliedReplicas") == 3; }, 30s));
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") == "Ready"; }, 20s));

  set_replicas_as("tenant", 5);
  const auto conflicted = wait_for_dha(
      [](const rapidjson::Value& d) { return condition_of(d, "ScalingLimited") == "OwnershipConflict"; }, 20s);
  ASSERT_TRUE(conflicted.reached) << conflicted.describe();
  // Both counts and the way out, on the condition and in the event.
  EXPECT_EQ(condition_of(conflicted.dha, "ScalingLimited", "message"),
            "replicas changed to 5 by a competing writer; our last write was 3; set replicas back to 3, or delete "
            "and re-create the DHA to adopt 5");
  EXPECT_EQ(condition_of(conflicted.dha, "AbleToScale", "message"),
            condition_of(conflicted.dha, "ScalingLimited", "message"));
  EXPECT_TRUE(holds_for([&] { return replicas() == 5; }, 3s)) << "entered a write war";
  const auto conflicts = events("OwnershipConflict");
  ASSERT_EQ(conflicts.size(), 1u);
  EXPECT_EQ(conflicts[0],
            "replicas changed to 5 by a competing writer (marker=\"db-dha\"); not entering a write war: our last "
            "write was 3; set replicas back to 3, or delete and re-create the DHA to adopt 5");
  for (const auto& p : target_patches()) {
    if (p.username == kOperatorA) {
      EXPECT_EQ(p.body.find("\"replicas\":5"), std::string::npos);
    }
  }
  EXPECT_TRUE(eventually(
      [&] {
        return metrics_text().find("db_autoscaler_scaling_limited{namespace=\"tenant-a\",name=\"db-dha\"} 1") !=
               std::string::npos;
      },
      10s));
}

TEST_F(SafetyTest, DryRunEmitsEventsAndStatusButNeverPatches) {
  create_postgres(2);
  create_workload_monitor(2);
  set_load(250);
  DhaOptions o;
  o.dry_run = true;
  create_dha(o);
  start_operator();
  ASSERT_TRUE(eventually([&] { return status_int("desiredReplicas") == 3; }, 30s));
  ASSERT_TRUE(eventually([&] { return !events("DryRunScale").empty(); }, 10s));
  EXPECT_EQ(events("DryRunScale")[0], "would scale 2 -> 3: ReadConnections 250/100");
  set_load(350);  // the would-be count stays 3 (one step): no new message
  EXPECT_TRUE(holds_for([&] { return replicas() == 2; }, 3s));
  EXPECT_EQ(events("DryRunScale").size(), 1u);
  EXPECT_TRUE(target_patches().empty());
  EXPECT_EQ(marker(), "");
  EXPECT_EQ(kube::string_at(dha(), {"status", "lastDecision", "kind"}), "Scale");
  // Counted apart: kind="Scale" means a change was made.
  const std::string text = metrics_text();
  EXPECT_NE(text.find("db_autoscaler_decisions_total{namespace=\"tenant-a\",name=\"db-dha\",kind=\"DryRunScale\""),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("kind=\"Scale\""), std::string::npos) << text;
}

TEST_F(SafetyTest, UnknownKindIsNoAdapterListingTheHandledKinds) {
  create_postgres(2);
  create_workload_monitor(2);
  DhaOptions o;
  o.kind = "ClickHouse";
  create_dha(o);
  start_operator();
  const auto no_adapter =
      wait_for_dha([](const rapidjson::Value& d) { return condition_of(d, "ScalingActive") == "NoAdapter"; }, 30s);
  ASSERT_TRUE(no_adapter.reached) << no_adapter.describe();
  EXPECT_EQ(condition_of(no_adapter.dha, "ScalingActive", "message"),
            "no engine adapter handles apps.cozystack.io/ClickHouse; the loaded adapters handle: "
            "apps.cozystack.io/Postgres, postgresql.cnpg.io/Cluster");
  EXPECT_EQ(condition_of(no_adapter.dha, "AbleToScale", "status"), "False");
  EXPECT_TRUE(eventually(
      [&] {
        return metrics_text().find("db_autoscaler_frozen{namespace=\"tenant-a\",name=\"db-dha\"} 1") !=
               std::string::npos;
      },
      10s));
  // The early stop requeues at the sync period (docs/behaviour.md#diff-early-stop-requeue). It
  // never writes to a target, so it carries no finalizer (docs/behaviour.md#reconcile-finalizer).
  auto d = dha();
  const auto* f = kube::find_path(d, {"metadata", "finalizers"});
  EXPECT_TRUE(f == nullptr || (f->IsArray() && f->Size() == 0));
}

}  // namespace
}  // namespace dha::optest
