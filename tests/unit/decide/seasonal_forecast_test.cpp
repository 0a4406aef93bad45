// The simulator's forecast: the same window on the previous days, their mean plus two standard
// deviations, never anything from the future.

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "decide_test_support.hpp"
#include "dha/decide/seasonal_forecast.hpp"
#include "dha/simulate/simulation.hpp"

namespace dha::testing {
namespace {

using decide::LoadTrace;
using decide::kSecondsPerDay;

model::DhaSpec spec_target_100(const std::string& behavior = "{}") {
  return spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],"behavior":)" + behavior + "}");
}

// 150 connections, and from noon to 13:00 the given peak, on each day.
std::string daily_peaks(std::initializer_list<int> peaks) {
  std::string csv = "time,ReadConnections\n";
  std::int64_t day = 0;
  for (int peak : peaks) {
    const std::int64_t base = day * kSecondsPerDay;
    csv += std::to_string(base) + ",150\n" + std::to_string(base + 43199) + ",150\n" + std::to_string(base + 43200) +
           "," + std::to_string(peak) + "\n" + std::to_string(base + 46800) + "," + std::to_string(peak) + "\n" +
           std::to_string(base + 46801) + ",150\n";
    ++day;
  }
  csv += std::to_string(day * kSecondsPerDay) + ",150\n";
  return csv;
}

TEST(SeasonalForecast, NeedsAWholeDayOfHistory) {
  const auto load = LoadTrace::parse_csv(daily_peaks({500, 500, 500}));
  EXPECT_FALSE(decide::seasonal_forecast(spec_target_100(), load, 43000, 300));
}

TEST(SeasonalForecast, SeesTomorrowsPeakFromTheSameWindowOfEarlierDays) {
  const auto load = LoadTrace::parse_csv(daily_peaks({500, 500, 150}));
  // Day 3 at 11:55: the peak is not in its own data, but days 1 and 2 had it at noon.
  const auto f = decide::seasonal_forecast(spec_target_100(), load, 2 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->read_replicas, 5.0);
  EXPECT_EQ(f->horizon_seconds, 300);
  // Too short a horizon to reach noon: only the morning is foreseen.
  EXPECT_DOUBLE_EQ(decide::seasonal_forecast(spec_target_100(), load, 2 * kSecondsPerDay + 42900, 60)->read_replicas,
                   1.5);
}

TEST(SeasonalForecast, TheSpreadBetweenDaysIsTheMargin) {
  const auto load = LoadTrace::parse_csv(daily_peaks({400, 600, 150}));
  const auto f = decide::seasonal_forecast(spec_target_100(), load, 2 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_NEAR(f->read_replicas, 5.0 + 2 * std::sqrt(2.0), 1e-9);  // mean 5, sample deviation sqrt(2)
}

TEST(SimulationPredictive, APeakThatComesEveryDayFindsItsReplicasReady) {
  const auto load = LoadTrace::parse_csv(daily_peaks({500, 500, 500}));
  decide::SimulationParams params;
  params.start_at = 2 * kSecondsPerDay;  // the first two days are history
  params.initial_replicas = 3;
  const auto adaptive = decide::simulate(spec_target_100(R"({"policy":"Adaptive"})"), load, params);
  const auto predictive =
      decide::simulate(spec_target_100(R"({"policy":"Adaptive","adaptive":{"predictive":true}})"), load, params);
  EXPECT_GT(adaptive.summary.seconds_above_target, 60);  // it reacts at noon and waits for the replicas
  EXPECT_EQ(predictive.summary.seconds_above_target, 0);
  EXPECT_EQ(predictive.summary.duration_seconds, kSecondsPerDay);
  EXPECT_LE(predictive.summary.scale_actions, adaptive.summary.scale_actions);
}

}  // namespace
}  // namespace dha::testing
