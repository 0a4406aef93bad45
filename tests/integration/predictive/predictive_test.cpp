// A Postgres whose read load peaks at 500 connections for an hour every day, ten minutes from
// now, and is at 150 now: a predictive DHA reads the week before from VictoriaMetrics and scales
// up before the load exceeds its target, showing the forecast in its decision trace; the same
// DHA without `predictive` holds, and a predictive one with no history says why it has no
// forecast.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "../postgres_pipeline_world.hpp"

namespace {

using dha::testing::ObjectRef;

const ObjectRef kDb = dha::integration::kPostgresDb;
const ObjectRef kDha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "tenant-a", "db-dha"};

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kPeakInSeconds = 600;
constexpr int kBaseLoad = 150;  // 75 per read replica of 2: under the target of 100
constexpr int kPeakLoad = 500;

class Predictive : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = dha::integration::postgres_pipeline_world();
    pipeline_ = &world_->pipeline();
    now_ = dha::testing::unix_millis_now() / 1000 / 60 * 60;
  }

  // Every minute of the past week (or only now), the load of a day whose peak hour starts
  // kPeakInSeconds after now.
  void import_load(bool with_history) {
    std::string text;
    for (std::int64_t t = with_history ? now_ - 7 * kDay : now_; t <= now_; t += 60) {
      const std::int64_t into_peak = ((t - now_ - kPeakInSeconds) % kDay + kDay) % kDay;
      const int load = into_peak < 3600 ? kPeakLoad : kBaseLoad;
      text += dha::integration::replica_connections(std::to_string(load), t * 1000);
    }
    world_->vm().import_prometheus(text);
  }

  // A healthy Postgres of 3 instances (2 read replicas) and its DHA, Adaptive.
  void create(bool predictive) {
    world_->create_healthy_target(dha::integration::healthy_postgres(3));
    world_->create_dha("db-dha", R"({"targetRef": {"apiGroup": "apps.cozystack.io", "kind": "Postgres", "name": "db"},
                                   "minReplicas": 2, "maxReplicas": 8,
                                   "metrics": [{"type": "ReadConnections", "target": {"averageValue": "100"}}],
                                   "behavior": {"policy": "Adaptive", "adaptive": {"predictive": )" +
                                     std::string(predictive ? "true" : "false") + "}}}");
  }

  std::string reconcile() {
    const auto outcome = pipeline_->reconcile("tenant-a", "db-dha");
    EXPECT_NE(outcome.kind, dha::testing::ReconcileOutcome::Kind::kError) << outcome.error;
    return pipeline_->get(kDha);
  }

  // CloudNativePG's database sizes on the primary db-1, `gib` GiB in all, as of now: what the
  // postgres adapter estimates a new instance's ready time from (88 s + 11 s per GiB).
  void import_primary_database_size(double gib) {
    const std::string t = " " + std::to_string(now_ * 1000) + "\n";
    world_->vm().import_prometheus(
        R"(cnpg_pg_database_size_bytes{namespace="tenant-a",pod="db-1",datname="app"} )" +
        std::to_string(static_cast<std::int64_t>(gib * 1073741824)) + t +
        R"(kube_pod_labels{namespace="tenant-a",pod="db-1",label_apps_cozystack_io_application_name="db",)"
        R"(label_apps_cozystack_io_application_kind="Postgres",label_cnpg_io_instance_role="primary"} 1)" +
        t);
  }

  std::unique_ptr<dha::testing::PipelineWorld> world_;
  dha::testing::Pipeline* pipeline_ = nullptr;
  std::int64_t now_ = 0;
};

TEST_F(Predictive, ScalesUpAheadOfTheDailyPeak) {
  import_load(true);
  create(true);
  const auto started = std::chrono::steady_clock::now();
  const std::string dha = reconcile();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(20)) << "a week's range query";
  // 150 connections fit the 2 read replicas; the peak of 5 read replicas is ten minutes away.
  EXPECT_GE(pipeline_->read_int(kDb, "spec.replicas").value_or(0), 6) << dha;
  EXPECT_NE(dha.find("forecast 5.00 read replicas within"), std::string::npos) << dha;
  // The gate that raised it says so in its trace line: "<gate>: <in> -> <out>, Forecast: ...".
  EXPECT_NE(dha.find(", Forecast: forecast"), std::string::npos) << dha;
}

// Before the DHA has measured a scale-up of its own, the ready time is the adapter's estimate
// from the data a new instance clones: 8 GiB, 176 s; the trace says where the figure comes from.
// (How it sizes a growing overload is decide's, tested there.)
TEST_F(Predictive, AnOverloadSaysItsReadyTimeIsTheAdaptersEstimate) {
  world_->vm().import_prometheus(dha::integration::replica_connections("500", now_ * 1000));
  import_primary_database_size(8);
  create(false);
  const std::string dha = reconcile();
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 7) << dha;  // 5 read replicas / 0.88 -> 6, + the primary
  EXPECT_NE(dha.find("expected in 176s when new replicas are ready (estimated by the engine adapter)"),
            std::string::npos)
      << dha;
}

// The forecast looks as far ahead as the same ready time, plus a cycle and the down-window:
// 176 + 60 + 600 s (with the assumed 120 s it would be 780 s).
TEST_F(Predictive, TheForecastHorizonUsesTheSameReadyTime) {
  import_load(true);
  import_primary_database_size(8);
  create(true);
  const std::string dha = reconcile();
  EXPECT_NE(dha.find("read replicas within 836s"), std::string::npos) << dha;
}

TEST_F(Predictive, WithoutPredictiveTheSameHistoryChangesNothing) {
  import_load(true);
  create(false);
  const std::string dha = reconcile();
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 3) << dha;
  EXPECT_EQ(dha.find("forecast"), std::string::npos) << dha;
}

TEST_F(Predictive, NoHistoryMeansNoForecastAndSaysWhy) {
  import_load(false);
  create(true);
  const std::string dha = reconcile();
  EXPECT_EQ(pipeline_->read_int(kDb, "spec.replicas"), 3) << dha;
  EXPECT_NE(dha.find("no forecast: "), std::string::npos) << dha;
}

}  // namespace
