// The parts of grouped observation that need no metric source: one answer per key for its max
// age (asked once even by concurrent reconciles), each target's series picked by its labels and
// combined as its own query's would be, and which failures speak for each target.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "pipeline/grouped_query.hpp"

namespace dha::pipeline {
namespace {

SeriesAnswer answer_of(std::vector<sdk::Sample> samples) {
  SeriesAnswer a;
  a.result.query = "sum by (app)(x{namespace=\"n\"})";
  a.samples = std::move(samples);
  return a;
}

const GroupedQueryKey kKey{"tenant-a", std::nullopt, "apps.cozystack.io/Postgres", "ReadConnections", "q"};

TEST(GroupedAnswers, OneFetchPerKeyAndCycleEvenForConcurrentReconciles) {
  GroupedAnswers answers(60);
  std::atomic<int> fetches = 0;
  const auto fetch = [&] {
    ++fetches;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the others arrive while it runs
    return answer_of({{{{"app", "db"}}, 3}});
  };
  std::vector<std::thread> reconciles;
  std::atomic<int> fetched_here = 0;
  for (int i = 0; i < 8; ++i) {
    reconciles.emplace_back([&] {
      bool fetched = false;
      const auto a = answers.get(kKey, 1'700'000'000, fetch, fetched);
      EXPECT_EQ(a->samples.size(), 1u);
      if (fetched) ++fetched_here;
    });
  }
  for (auto& t : reconciles) t.join();
  EXPECT_EQ(fetches, 1);
  EXPECT_EQ(fetched_here, 1) << "exactly one caller is told it sent the query";

  bool fetched = false;
  GroupedQueryKey other = kKey;
  other.namespace_name = "tenant-b";
  answers.get(other, 1'700'000'000, fetch, fetched);
  EXPECT_TRUE(fetched) << "another namespace is another question";
  answers.get(kKey, 1'700'000'000 + 60, fetch, fetched);
  EXPECT_TRUE(fetched) << "an answer as old as the max age is not used";
  EXPECT_EQ(fetches, 3);
}

TEST(GroupedAnswers, AnAnswerServesForItsMaxAgeFromWhenItWasAskedFor) {
  // Counted from the ask, not from a window of the wall clock: an answer asked for a second
  // before a multiple of the max age still serves the reconciles just after it.
  GroupedAnswers answers(10);
  int fetches = 0;
  bool fetched = false;
  const auto fetch = [&] {
    ++fetches;
    return answer_of({});
  };
  const std::int64_t t = 1'700'000'009;  // one second before a multiple of 10
  answers.get(kKey, t, fetch, fetched);
  EXPECT_TRUE(fetched);
  answers.get(kKey, t + 1, fetch, fetched);
  EXPECT_FALSE(fetched) << "a second later, across a multiple of the max age";
  answers.get(kKey, t + 9, fetch, fetched);
  EXPECT_FALSE(fetched) << "nine seconds old";
  answers.get(kKey, t + 10, fetch, fetched);
  EXPECT_TRUE(fetched) << "ten seconds old: asked again";
  answers.get(kKey, t + 11, fetch, fetched);
  EXPECT_FALSE(fetched) << "the new answer serves from its own ask";
  answers.get(kKey, t + 5, fetch, fetched);
  EXPECT_TRUE(fetched) << "the clock went back: an answer from the future is not used";
  EXPECT_EQ(fetches, 3);
}

TEST(GroupedAnswers, ExpiredAnswersAreDropped) {
  GroupedAnswers answers(10);
  bool fetched = false;
  const auto fetch = [] { return answer_of({}); };
  for (int i = 0; i < 50; ++i) {
    GroupedQueryKey k = kKey;
    k.namespace_name = "tenant-" + std::to_string(i);
    answers.get(k, 1'700'000'000, fetch, fetched);
  }
  EXPECT_EQ(answers.size(), 50u);
  answers.get(kKey, 1'700'000'000 + 30, fetch, fetched);
  EXPECT_EQ(answers.size(), 1u) << "namespaces that stopped asking (deleted, say) cost nothing";
}

TEST(GroupedAnswers, AWindowOfZeroSharesNothing) {
  GroupedAnswers answers(0);
  int fetches = 0;
  bool fetched = false;
  for (int i = 0; i < 3; ++i)
    answers.get(
        kKey, 1'700'000'000,
        [&] {
          ++fetches;
          return answer_of({});
        },
        fetched);
  EXPECT_EQ(fetches, 3);
}

TEST(GroupedQuery, TheTargetsSeriesAreCombinedAsItsOwnQuerysWouldBe) {
  const auto grouped = answer_of({{{{"app", "db"}, {"role", "a"}}, 3},
                                  {{{"app", "db"}, {"role", "b"}}, 4},
                                  {{{"app", "other"}}, 100},
                                  {{{"app", "broken"}}, -5}});
  const auto sum = select_target(grouped, {{"app", "db"}}, Aggregation::kSum, "ReadConnections");
  EXPECT_EQ(sum.value, 7);
  EXPECT_EQ(sum.series, 2u);
  EXPECT_EQ(sum.query, grouped.result.query);
  EXPECT_EQ(select_target(grouped, {{"app", "db"}}, Aggregation::kMax, "lag").value, 4);

  const auto missing = select_target(grouped, {{"app", "gone"}}, Aggregation::kSum, "ReadConnections");
  EXPECT_FALSE(missing.value);
  EXPECT_EQ(missing.outcome, "empty");
  EXPECT_EQ(missing.problem, "query for ReadConnections returned no series");

  const auto negative = select_target(grouped, {{"app", "broken"}}, Aggregation::kSum, "ReadConnections");
  EXPECT_FALSE(negative.value);
  EXPECT_EQ(negative.problem, "ReadConnections query returned -5, a negative value");
  EXPECT_EQ(select_target(grouped, {{"app", "other"}}, Aggregation::kSum, "x").value, 100)
      << "one target's bad reading is only its own";
}

TEST(GroupedQuery, AFailedAnswerIsEachTargetsFailureOrAFallback) {
  SeriesAnswer down;
  down.status = DHA_UNAVAILABLE;
  down.result.outcome = "unavailable";
  down.result.problem = "query for ReadConnections failed (unavailable): connection refused";
  EXPECT_TRUE(answers_for_each_target(down));
  EXPECT_EQ(select_target(down, {{"app", "db"}}, Aggregation::kSum, "ReadConnections").problem, down.result.problem);
  for (const dha_status s : {DHA_NOT_FOUND, DHA_DEADLINE_EXCEEDED, DHA_UNAUTHENTICATED}) {
    down.status = s;
    EXPECT_TRUE(answers_for_each_target(down)) << s;
  }
  for (const dha_status s : {DHA_OUT_OF_RANGE, DHA_RESOURCE_EXHAUSTED, DHA_PERMISSION_DENIED, DHA_FAILED_PRECONDITION,
                             DHA_DATA_LOSS, DHA_INTERNAL}) {
    down.status = s;
    EXPECT_FALSE(answers_for_each_target(down)) << "spoiled for every target, each asks its own: " << s;
  }
}

TEST(GroupedQuery, LabelValuesAreTheTargetsAndOnlyNamespaceWideTemplatesAreShared) {
  const tenancy::TargetLabels target{"tenant-a", "db", "postgres-db"};
  const auto values =
      target_label_values({{"app", "${name}"}, {"cluster", "postgres-${name}"}, {"r", "${release}"}}, target);
  ASSERT_TRUE(values);
  EXPECT_EQ(values->at("app"), "db");
  EXPECT_EQ(values->at("cluster"), "postgres-db");
  EXPECT_EQ(values->at("r"), "postgres-db");
  EXPECT_FALSE(target_label_values({{"app", "${pod}"}}, target));
  EXPECT_FALSE(target_label_values({{"app", "${name"}}, target));
  EXPECT_TRUE(tenancy::is_namespace_wide(R"(sum by (app)(x{namespace="${namespace}"}))"));
  EXPECT_FALSE(tenancy::is_namespace_wide(R"(sum(x{namespace="${namespace}", app="${name}"}))"));
  EXPECT_FALSE(tenancy::is_namespace_wide(R"(sum(x{namespace="${namespace}", app="${release}"}))"));
}

}  // namespace
}  // namespace dha::pipeline
