// The backup window gate in the operator's real pipeline, next to acmedb.so: a load that wants
// AcmeDB/orders down from 4 to 3 is held while the window is open, with the gate's words on the
// DHA, and goes through once it has closed. The pipeline's manual clock is the gate's `now`, so
// the test sets the time of day; VictoriaMetrics still answers at the wall clock, which is why
// the load is imported at unix_millis_now() and stays readable however far the clock moves.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "dha/testing/pipeline_world.hpp"

namespace {

using namespace std::chrono_literals;
using dha::testing::ObjectRef;

const ObjectRef kOrders{"db.example.com", "v1", "acmedbs", "tenant-a", "orders"};
constexpr std::int64_t kOneThirtyUtc = 1'700'006'400 + 90 * 60;  // 2023-11-15 01:30 UTC

TEST(BackupWindowPipeline, AScaleDownWaitsForTheWindowToClose) {
  dha::testing::PipelineWorldOptions options;
  options.crd_dirs = {ACMEDB_CRD_DIR};
  options.plugin_dirs = {ACMEDB_PLUGIN_DIR, BACKUP_WINDOW_PLUGIN_DIR};
  options.plugins = {"acmedb", "acmedb-backup-window"};
  options.plugin_config = {{"acmedb-backup-window", R"({"opensAt": "01:00", "minutes": 60})"}};
  options.start_unix_seconds = kOneThirtyUtc - 60;  // 01:29 UTC: the window opened 29 minutes ago
  dha::testing::PipelineWorld world(options);
  auto& pipeline = world.pipeline();

  world.create_healthy_target(
      {.object = kOrders, .kind = "AcmeDB", .replicas = 4, .monitor = "acmedb-orders", .monitor_kind = "acmedb"});
  const auto t = std::to_string(dha::testing::unix_millis_now());
  // 150 connections: 2 read replicas + the primary = 3, one fewer than runs.
  world.vm().import_prometheus(
      R"(acmedb_client_connections{namespace="tenant-a",cluster="orders",role="replica",pod="orders-1"} 150 )" + t +
      "\n");
  world.create_dha("orders", R"({"targetRef": {"apiGroup": "db.example.com", "kind": "AcmeDB", "name": "orders"},
                                 "minReplicas": 2, "maxReplicas": 6,
                                 "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}],
                                 "behavior": {"scaleDown": {"stabilizationWindowSeconds": 0, "step": 1}}})");

  // The first cycle only records where AcmeDB stands (the scale-down window compares with it).
  auto outcome = pipeline.reconcile("tenant-a", "orders");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  pipeline.clock().advance(60s);  // 01:30
  outcome = pipeline.reconcile("tenant-a", "orders");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline.read_int(kOrders, "spec.replicas"), 4) << "scaled down inside the backup window";
  EXPECT_EQ(pipeline.condition("tenant-a", "orders", "ScalingLimited"), "BackupWindow");
  EXPECT_EQ(pipeline.condition("tenant-a", "orders", "ScalingLimited", "message"),
            "backup window 01:00-02:00 UTC is open (closes in 30m); holding 4 -> 3 at 4");

  pipeline.clock().advance(30min);  // 02:00: closed
  outcome = pipeline.reconcile("tenant-a", "orders");
  ASSERT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
  EXPECT_EQ(pipeline.read_int(kOrders, "spec.replicas"), 3) << pipeline.get(kOrders);
}

}  // namespace
