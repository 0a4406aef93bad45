// The forecast: the same window on the previous days (or weeks, once two are known), scaled to
// today's level, their median plus a margin (their spread, or how far the same forecast missed
// today's last two hours if that is more); never anything from the future.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "decide_test_support.hpp"
#include "dha/decide/seasonal_forecast.hpp"
#include "dha/simulate/simulation.hpp"

namespace dha::testing {
namespace {

using decide::kSecondsPerDay;
using decide::LoadTrace;

model::DhaSpec spec_target_100(const std::string& behavior = "{}") {
  return spec_from_json(R"({"minReplicas":2,"maxReplicas":8,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],"behavior":)" +
                        behavior + "}");
}

struct Day {
  int base;  // connections all day
  int peak;  // from noon to 13:00
};

std::string days_csv(const std::vector<Day>& days) {
  std::string csv = "time,ReadConnections\n";
  std::int64_t day = 0;
  for (const Day& d : days) {
    const std::int64_t at = day * kSecondsPerDay;
    const std::string base = std::to_string(d.base), peak = std::to_string(d.peak);
    // A row every ten minutes, as a metrics export has them (a value between two rows is known
    // once the later one is in the past); the peak's edges are sharp.
    for (std::int64_t t = 0; t < 43200; t += 600) csv += std::to_string(at + t) + "," + base + "\n";
    csv += std::to_string(at + 43199) + "," + base + "\n";
    for (std::int64_t t = 43200; t <= 46800; t += 600) csv += std::to_string(at + t) + "," + peak + "\n";
    csv += std::to_string(at + 46801) + "," + base + "\n";
    for (std::int64_t t = 47400; t < 86400; t += 600) csv += std::to_string(at + t) + "," + base + "\n";
    ++day;
  }
  csv += std::to_string(day * kSecondsPerDay) + "," + std::to_string(days.back().base) + "\n";
  return csv;
}

// 150 connections, and from noon to 13:00 the given peak, on each day.
std::string daily_peaks(std::initializer_list<int> peaks) {
  std::vector<Day> days;
  for (int p : peaks) days.push_back({150, p});
  return days_csv(days);
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
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, 2 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->estimate, 5.0);      // the median of two: their mean
  EXPECT_DOUBLE_EQ(f->spread, 1.0);        // half their difference
  EXPECT_DOUBLE_EQ(f->recent_error, 0.0);  // today so far is exactly like them
  EXPECT_DOUBLE_EQ(f->margin, 1.0);        // so their spread is the margin
  EXPECT_DOUBLE_EQ(f->forecast.read_replicas, 6.0);
  EXPECT_EQ(f->forecast.estimate, 5.0);  // the policy is given both figures
  EXPECT_EQ(f->references, 2);
}

// Two references that agree make no margin of their own, but a today whose readings strayed from
// them does: the margin is at least how far the forecast missed today's peaks over the last two
// hours. Here the references are flat at 150 all day, and today, from 06:00, has a row every ten
// minutes that alternates between 150 and 250, so that every 20-minute window of it peaks at 250
// while the references (at today's level) give 150 x level for it.
std::string flat_days_then_alternating(std::int64_t until) {
  std::string csv = "time,ReadConnections\n";
  for (std::int64_t t = 0; t <= until; t += 600) {
    const std::int64_t in_day = t % kSecondsPerDay;
    const bool today = t >= 2 * kSecondsPerDay && in_day >= 21600;
    csv += std::to_string(t) + "," + (today && (t / 600) % 2 == 1 ? "250" : "150") + "\n";
  }
  return csv;
}

TEST(SeasonalForecast, TheMarginIsAtLeastWhatTheForecastMissedToday) {
  const std::int64_t now = 2 * kSecondsPerDay + 42900;  // 11:55
  const auto load = LoadTrace::parse_csv(flat_days_then_alternating(3 * kSecondsPerDay));
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, now, 1200);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->references, 2);
  EXPECT_DOUBLE_EQ(f->spread, 0.0);  // the references agree exactly
  EXPECT_GT(f->level, 1.0);
  EXPECT_DOUBLE_EQ(f->estimate, 1.5 * f->level);
  // Every window of the last two hours missed by the same amount: 2.5 came, 1.5 x level was given.
  EXPECT_NEAR(f->recent_error, 1.4826 * std::fabs(2.5 - 1.5 * f->level), 1e-9);
  EXPECT_GT(f->recent_error, 0.1);
  EXPECT_DOUBLE_EQ(f->margin, f->recent_error);
  EXPECT_DOUBLE_EQ(f->forecast.read_replicas, f->estimate + f->margin);
  // What comes at or after now is not read: the same history with the rest of the day at 900
  // gives the same figures.
  std::string later = flat_days_then_alternating(now - 300);
  for (std::int64_t t = now + 300; t <= 3 * kSecondsPerDay; t += 600) later += std::to_string(t) + ",900\n";
  const auto g = decide::seasonal_forecast_detail(spec_target_100(), LoadTrace::parse_csv(later), now, 1200);
  ASSERT_TRUE(g);
  EXPECT_DOUBLE_EQ(g->recent_error, f->recent_error);
  EXPECT_DOUBLE_EQ(g->forecast.read_replicas, f->forecast.read_replicas);
}

// One busy day among seven moves a median by nothing: a one-off flash crowd is not expected again.
TEST(SeasonalForecast, AOneOffDayIsOutvoted) {
  const auto load = LoadTrace::parse_csv(daily_peaks({500, 500, 500, 1500, 500, 500, 500, 150}));
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, 7 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->references, 7);
  EXPECT_DOUBLE_EQ(f->estimate, 5.0);
  EXPECT_DOUBLE_EQ(f->margin, 0.0);  // six of seven agree exactly
}

// Once two weeks are known the references are the same weekday: a weekend is forecast from
// weekends, not from the five busier days before it.
TEST(SeasonalForecast, WeeklyOnceTwoWeeksAreKnown) {
  std::vector<Day> days;
  for (int d = 0; d < 21; ++d) days.push_back({150, d % 7 >= 5 ? 200 : 600});
  const auto load = LoadTrace::parse_csv(days_csv(days));
  const std::int64_t saturday = 19 * kSecondsPerDay + 42900;  // 19 % 7 == 5
  const auto weekend = decide::seasonal_forecast_detail(spec_target_100(), load, saturday, 300);
  ASSERT_TRUE(weekend);
  EXPECT_EQ(weekend->period_seconds, decide::kSecondsPerWeek);
  EXPECT_EQ(weekend->references, 2);  // days 12 and 5
  EXPECT_DOUBLE_EQ(weekend->forecast.read_replicas, 2.0);
  // With less than two weeks behind it, the same Saturday falls back to the last seven days.
  const std::int64_t first_saturday = 12 * kSecondsPerDay + 42900;
  const auto daily = decide::seasonal_forecast_detail(spec_target_100(), load, first_saturday, 300);
  ASSERT_TRUE(daily);
  EXPECT_EQ(daily->period_seconds, kSecondsPerDay);
  EXPECT_EQ(daily->references, 7);
  EXPECT_DOUBLE_EQ(daily->estimate, 6.0);
}

// A history fetched for two weeks can hold only the last few days (a young database): the week
// before has no readings, so the forecast is by day.
TEST(SeasonalForecast, AHistoryWithoutTwoWeeksOfReadingsIsByDay) {
  std::string csv = "time,ReadConnections\n0,\n";  // fifteen days, readings from day 12 on
  const auto days = days_csv({{150, 600}, {150, 600}, {150, 600}});
  std::size_t pos = days.find('\n') + 1;
  while (pos < days.size()) {
    const auto nl = days.find('\n', pos);
    const auto line = days.substr(pos, nl - pos);
    const auto comma = line.find(',');
    csv += std::to_string(std::stoll(line.substr(0, comma)) + 12 * kSecondsPerDay) + line.substr(comma) + "\n";
    pos = nl + 1;
  }
  const auto load = LoadTrace::parse_csv(csv);
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, 14 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->period_seconds, kSecondsPerDay);
  EXPECT_EQ(f->references, 2);
  EXPECT_DOUBLE_EQ(f->forecast.read_replicas, 6.0);
}

// A day that has been quiet so far (a holiday) scales the references down to its level.
TEST(SeasonalForecast, TodaysLevelScalesTheReferences) {
  const auto load = LoadTrace::parse_csv(days_csv({{150, 600}, {150, 600}, {75, 300}}));
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, 2 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->level, 0.5);
  EXPECT_DOUBLE_EQ(f->forecast.read_replicas, 3.0);
}

// Today's level is the last two hours: a day still quiet at 11:55, whose references were busy
// from 10:30 on, is forecast at its own level. (Over three hours, night in both would have made
// the two look alike: a weekday's noon expected on a holiday.)
TEST(SeasonalForecast, TodaysLevelIsTheLastTwoHours) {
  std::string csv = "time,ReadConnections\n";
  for (std::int64_t t = 0; t <= 3 * kSecondsPerDay; t += 60) {
    const std::int64_t in_day = t % kSecondsPerDay;
    const bool reference = t < 2 * kSecondsPerDay;
    const int value = !reference || in_day < 37800 ? 150 : in_day < 43200 ? 300 : in_day < 46800 ? 600 : 150;
    csv += std::to_string(t) + "," + std::to_string(value) + "\n";
  }
  const auto load = LoadTrace::parse_csv(csv);
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, 2 * kSecondsPerDay + 42900, 300);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->references, 2);
  EXPECT_DOUBLE_EQ(f->level, 0.5);                   // 150 against the references' 300
  EXPECT_DOUBLE_EQ(f->forecast.read_replicas, 3.0);  // their noon's 6, halved
}

// Today and a reference are compared at the same instants: an hour of peak and an hour after it,
// on every day alike, is the same level, though today's last minute is not known yet and the
// reference's is (read apart, today's median fell between the peak and the rest: over twice the
// reference's).
TEST(SeasonalForecast, TodayAndItsReferencesAreComparedAtTheSameInstants) {
  const auto load = LoadTrace::parse_csv(daily_peaks({500, 500, 500}));
  const auto f = decide::seasonal_forecast_detail(spec_target_100(), load, 2 * kSecondsPerDay + 50460, 300);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->level, 1.0);
  EXPECT_DOUBLE_EQ(f->forecast.read_replicas, 1.5);
}

TEST(SeasonalForecast, TheHorizonIsBounded) {
  const auto spec = spec_target_100(R"({"scaleDown":{"stabilizationWindowSeconds":172800}})");
  EXPECT_EQ(decide::forecast_horizon(spec, 120, 60), decide::kMaxForecastHorizonSeconds);
  EXPECT_EQ(decide::forecast_horizon(spec_target_100(), 120, 60), 120 + 60 + 1800);
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
