// The proportional formula (docs/behaviour.md#formula) per metric, and over a spec's metrics.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "decide_test_support.hpp"
#include "dha/decide/backoff.hpp"
#include "dha/decide/formula.hpp"

namespace dha::testing {
namespace {

struct FormulaRow {
  const char* name;
  std::int32_t current, primaries;
  double average, target, tolerance;
  std::int32_t expected;
};

class Formula : public ::testing::TestWithParam<FormulaRow> {};

TEST_P(Formula, DesiredForMetric) {
  const auto& r = GetParam();
  EXPECT_EQ(decide::desired_for_metric(r.current, r.primaries, r.average, r.target, r.tolerance), r.expected);
}

constexpr double kMax = std::numeric_limits<double>::max();

INSTANTIATE_TEST_SUITE_P(
    Cases, Formula,
    ::testing::Values(FormulaRow{"worked_example", 3, 1, 210, 150, 0, 4},  // ceil(2.8) + 1
                      FormulaRow{"exactly_on_target", 3, 1, 150, 150, 0, 3},
                      FormulaRow{"slightly_above_adds_one", 3, 1, 150.0001, 150, 0, 4},
                      FormulaRow{"idle_keeps_one_reader", 5, 1, 0, 150, 0, 2},
                      FormulaRow{"negative_reading_keeps_one_reader", 5, 1, -10, 150, 0, 2},
                      FormulaRow{"single_instance_counts_one_reader", 1, 1, 300, 150, 0, 3},  // rcur = max(0, 1)
                      FormulaRow{"no_primary", 2, 0, 300, 150, 0, 4}, FormulaRow{"two_primaries", 4, 2, 300, 150, 0, 6},
                      FormulaRow{"saturates_instead_of_overflowing", 3, 1, kMax, 1e-300, 0, INT32_MAX},
                      FormulaRow{"non_positive_target_yields_current", 3, 1, 210, 0, 0, 3},
                      FormulaRow{"tolerance_inside_band", 3, 1, 160, 150, 0.1, 3},
                      FormulaRow{"tolerance_band_near_edge_inside", 3, 1, 164, 150, 0.1, 3},
                      FormulaRow{"tolerance_outside_band", 3, 1, 170, 150, 0.1, 4},
                      FormulaRow{"tolerance_below_band", 5, 1, 100, 150, 0.1, 4}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FormulaMetrics, CpuTargetIsInMillicores) {
  auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadCPUUtilization","target":{"averageValue":"250m"}}]})");
  auto obs = baseline_observation();
  obs.metrics = {{"ReadCPUUtilization", 700.0}};  // 350 millicores per reader
  const auto r = decide::evaluate_metrics(spec, obs);
  ASSERT_TRUE(r.available);
  EXPECT_DOUBLE_EQ(r.metrics[0].target, 250);
  EXPECT_EQ(r.raw_desired, 4);  // ceil(2 * 350 / 250) + 1
  EXPECT_EQ(r.summary, "ReadCPUUtilization 350/250 per read replica");
}

TEST(FormulaMetrics, WholeCpuTargetIsThousandMillicores) {
  auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadCPUUtilization","target":{"averageValue":"1"}}]})");
  auto obs = baseline_observation();
  obs.metrics = {{"ReadCPUUtilization", 2000.0}};
  EXPECT_EQ(decide::evaluate_metrics(spec, obs).raw_desired, 3);
}

TEST(FormulaMetrics, OneMissingMetricMakesTheSetUnavailable) {
  auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}},
                 {"type":"ReadCPUUtilization","target":{"averageValue":"250m"}}]})");
  auto obs = baseline_observation();  // connections only
  const auto r = decide::evaluate_metrics(spec, obs);
  EXPECT_FALSE(r.available);
  EXPECT_EQ(r.raw_desired, 0);
  EXPECT_TRUE(r.metrics.empty());
}

TEST(FormulaMetrics, InvalidTargetNamesTheMetric) {
  auto spec = spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}},
                 {"type":"ReadCPUUtilization","target":{"averageValue":"0"}}]})");
  EXPECT_EQ(decide::evaluate_metrics(spec, baseline_observation()).invalid_target_metric, "ReadCPUUtilization");
}

TEST(FormulaMetrics, ReadReplicasNeverBelowOne) {
  EXPECT_EQ(decide::read_replicas(3, 1), 2);
  EXPECT_EQ(decide::read_replicas(1, 1), 1);
  EXPECT_EQ(decide::read_replicas(0, 1), 1);
  EXPECT_EQ(decide::read_replicas(INT32_MIN, INT32_MAX), 1);
}

// docs/behaviour.md#guardrail-backoff: 900, 1800, 3600, 7200, 7200, ...
TEST(Backoff, DoublesThenCapsAtEightTimes) {
  const std::int64_t expected[] = {900, 1800, 3600, 7200, 7200, 7200};
  for (int count = 1; count <= 6; ++count) EXPECT_EQ(decide::backoff_seconds(900, count), expected[count - 1]) << count;
}

TEST(Backoff, CountBelowOneCountsAsOne) {
  EXPECT_EQ(decide::backoff_seconds(900, 0), 900);
  EXPECT_EQ(decide::backoff_seconds(900, -5), 900);
}

TEST(Backoff, HugeBaseDoesNotOverflow) {
  const auto v = decide::backoff_seconds(std::numeric_limits<std::int64_t>::max(), 4);
  EXPECT_GT(v, 0);
  EXPECT_EQ(v, (std::numeric_limits<std::int64_t>::max() / 8) << 3);
}

}  // namespace
}  // namespace dha::testing
