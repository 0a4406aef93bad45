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
  std::string depends_on;
  std::int64_t seconds_after_t0;
  int fetches_so_far;
  bool history;  // the answer is the fetched one (not a reason to wait)
};

TEST(HistoryCache, FetchesOncePerHourPerDhaWhateverItsDependencies) {
  const CacheStep steps[] = {
      {"the first reconcile fetches", "a", "ReadConnections", 0, 1, true},
      {"a minute later: cached", "a", "ReadConnections", 60, 1, true},
      {"just under the hour: cached", "a", "ReadConnections", 3599, 1, true},
      {"an hour after the fetch: again", "a", "ReadConnections", 3600, 2, true},
      {"another metric within the hour: waits, says why", "a", "ReadConnections,ReadCPUUtilization", 3660, 2, false},
      {"back to the first: still cached", "a", "ReadConnections", 3720, 2, true},
      {"the other metric an hour after the last fetch", "a", "ReadConnections,ReadCPUUtilization", 7200, 3, true},
      {"the first one is stale now, and the hour is taken: kept", "a", "ReadConnections", 7260, 3, true},
      {"another DHA has its own hour", "b", "ReadConnections", 7260, 4, true},
      {"a clock that went back before the fetch: again", "a", "ReadConnections,ReadCPUUtilization", 7000, 5, true},
  };
  HistoryCache cache;
  CountingFetch fetch;
  fetch.answer = FetchedHistory{kT0, {}};
  for (const auto& s : steps) {
    const auto got = cache.get(s.uid, s.depends_on, kT0 + s.seconds_after_t0, fetch.fn());
    EXPECT_EQ(fetch.calls, s.fetches_so_far) << s.what;
    EXPECT_EQ(std::holds_alternative<FetchedHistory>(*got), s.history) << s.what;
  }
}

model::DhaSpec spec_with(int max_replicas, const std::string& metrics) {
  return model::parse_spec(sdk::json::parse(R"({"minReplicas":2,"maxReplicas":)" + std::to_string(max_replicas) + R"(,
      "targetRef":{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","name":"db"},
      "metrics":[)" + metrics + R"(],
      "behavior":{"policy":"Adaptive","adaptive":{"predictive":true}}})",
                                            "spec"));
}

constexpr const char* kReads = R"({"type":"ReadConnections","target":{"averageValue":"100"}})";
constexpr const char* kCpu = R"({"type":"ReadCPUUtilization","target":{"averageUtilization":70}})";

TEST(HistoryCache, DependsOnTheMetricTypesAndTheTargetOnly) {
  const tenancy::TargetLabels db{"tenant-a", "db", "db"};
  const auto key = [&](const model::DhaSpec& s) { return history_depends_on(db, std::nullopt, s); };
  EXPECT_EQ(key(spec_with(8, kReads)), key(spec_with(9, kReads))) << "maxReplicas is not read by the history";
  EXPECT_EQ(key(spec_with(8, std::string(kReads) + "," + kCpu)), key(spec_with(8, std::string(kCpu) + "," + kReads)));
  EXPECT_NE(key(spec_with(8, kReads)), key(spec_with(8, kCpu)));
  EXPECT_NE(key(spec_with(8, kReads)),
            history_depends_on({"tenant-a", "db2", "db2"}, std::nullopt, spec_with(8, kReads)));
  EXPECT_NE(key(spec_with(8, kReads)), history_depends_on(db, std::string("mon"), spec_with(8, kReads)));
}

// A tenant writes the spec 100 times in the hour, alternating its metrics (the worst case):
// each write is a new generation and a reconcile, and the history is read once.
TEST(HistoryCache, AHundredSpecWritesWithinAnHourFetchOnce) {
  const tenancy::TargetLabels db{"tenant-a", "db", "db"};
  HistoryCache cache;
  CountingFetch fetch;
  for (int write = 0; write < 100; ++write) {
    const auto spec = spec_with(3 + write % 5, write % 2 == 0 ? std::string(kReads) : std::string(kReads) + "," + kCpu);
    cache.get("uid-1", history_depends_on(db, std::nullopt, spec), kT0 + write * 30, fetch.fn());
  }
  EXPECT_EQ(fetch.calls, 1);
}

TEST(HistoryCache, AFailureIsKeptForTheHourToo) {
  HistoryCache cache;
  CountingFetch fetch;
  fetch.answer = std::string("lag range query failed (UNAVAILABLE): connection refused");
  const auto first = cache.get("a", "ReadConnections", kT0, fetch.fn());
  const auto later = cache.get("a", "ReadConnections", kT0 + 1800, fetch.fn());
  EXPECT_EQ(fetch.calls, 1);
  ASSERT_TRUE(std::holds_alternative<std::string>(*later));
  EXPECT_EQ(std::get<std::string>(*later), std::get<std::string>(*first));
}

TEST(HistoryCache, DropsEntriesUnusedForTwoPeriods) {
  HistoryCache cache;
  CountingFetch fetch;
  cache.get("deleted", "ReadConnections", kT0, fetch.fn());
  cache.get("kept", "ReadConnections", kT0 + 3 * 3600, fetch.fn());
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
