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
