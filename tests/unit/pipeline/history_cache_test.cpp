// A predictive DHA's history is fetched at most once per hour: the clock here is the `now` each
// reconcile passes, so the test moves it by hand.

#include "pipeline/history_cache.hpp"

#include <gtest/gtest.h>

#include <string>

#include "dha/decide/seasonal_forecast.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/json.hpp"
#include "pipeline/predictive_forecast.hpp"

namespace dha::pipeline {
namespace {

constexpr std::int64_t kT0 = 1'700'000'000;

struct CountingFetch {
  int calls = 0;
  HistoryOrReason answer = std::string("not fetched yet");
  HistoryCache::Fetch fn() {
    return [this] {
      ++calls;
      return answer;
    };
  }
};

struct CacheStep {
  const char* what;
  std::string uid;
  std::int64_t generation;
  std::int64_t seconds_after_t0;
  int fetches_so_far;
};

TEST(HistoryCache, FetchesOncePerHourPerUidAndGeneration) {
  const CacheStep steps[] = {
      {"the first reconcile fetches", "a", 1, 0, 1},
      {"a minute later: cached", "a", 1, 60, 1},
      {"just under the hour: cached", "a", 1, 3599, 1},
      {"an hour after the fetch: again", "a", 1, 3600, 2},
      {"a new spec generation: at once", "a", 2, 3660, 3},
      {"the same generation again: cached", "a", 2, 3720, 3},
      {"another DHA has its own entry", "b", 2, 3720, 4},
      {"a clock that went back: again", "a", 2, 3000, 5},
  };
  HistoryCache cache;
  CountingFetch fetch;
  for (const auto& s : steps) {
    cache.get(s.uid, s.generation, kT0 + s.seconds_after_t0, fetch.fn());
    EXPECT_EQ(fetch.calls, s.fetches_so_far) << s.what;
  }
}

TEST(HistoryCache, AFailureIsKeptForTheHourToo) {
  HistoryCache cache;
  CountingFetch fetch;
  fetch.answer = std::string("lag range query failed (UNAVAILABLE): connection refused");
  const auto first = cache.get("a", 1, kT0, fetch.fn());
  const auto later = cache.get("a", 1, kT0 + 1800, fetch.fn());
  EXPECT_EQ(fetch.calls, 1);
  ASSERT_TRUE(std::holds_alternative<std::string>(*later));
  EXPECT_EQ(std::get<std::string>(*later), std::get<std::string>(*first));
}

TEST(HistoryCache, DropsEntriesUnusedForTwoPeriods) {
  HistoryCache cache;
  CountingFetch fetch;
  cache.get("deleted", 1, kT0, fetch.fn());
  cache.get("kept", 1, kT0 + 3 * 3600, fetch.fn());
  EXPECT_EQ(cache.size(), 1u);
}

model::DhaSpec predictive_spec() {
  return model::parse_spec(sdk::json::parse(R"({"minReplicas":2,"maxReplicas":8,
      "targetRef":{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","name":"db"},
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],
      "behavior":{"policy":"Adaptive","adaptive":{"predictive":true}}})",
                                                "spec"));
}

// Two days at 100 connections, with 500 from noon to 13:00 on each.
FetchedHistory two_peaked_days() {
  std::string csv = "time,ReadConnections\n";
  for (std::int64_t t = 0; t <= 2 * 86400; t += 60)
    csv += std::to_string(t) + "," + ((t % 86400 >= 43200 && t % 86400 < 46800) ? "500" : "100") + "\n";
  return {kT0, decide::LoadTrace::parse_csv(csv)};
}

TEST(PredictiveForecast, ForecastsTheComingPeakOverTheSimulatorsHorizon) {
  const model::DhaSpec spec = predictive_spec();
  // Ten minutes before the third day's peak: within ready + interval + down-window of it.
  const PredictiveContext context{"a", 1, kT0 + 2 * 86400 + 43200 - 600, 120, 60};
  const ForecastOrReason f = forecast_from(two_peaked_days(), spec, context);
  ASSERT_TRUE(f.forecast) << f.reason;
  EXPECT_DOUBLE_EQ(f.forecast->read_replicas, 5.0);
  EXPECT_EQ(f.forecast->horizon_seconds, decide::forecast_horizon(spec, 120, 60));
  EXPECT_GT(f.forecast->horizon_seconds, 600);
}

TEST(PredictiveForecast, NoForecastSaysWhy) {
  const model::DhaSpec spec = predictive_spec();
  const PredictiveContext context{"a", 1, kT0 + 3600, 120, 60};
  const ForecastOrReason unread = forecast_from(std::string("range queries are not supported"), spec, context);
  EXPECT_FALSE(unread.forecast);
  EXPECT_EQ(unread.reason, "range queries are not supported");
  const ForecastOrReason too_short = forecast_from(two_peaked_days(), spec, {"a", 1, kT0 + 3600, 120, 60});
  EXPECT_FALSE(too_short.forecast);
  EXPECT_NE(too_short.reason.find("no earlier day"), std::string::npos);
}

}  // namespace
}  // namespace dha::pipeline
