// When a DHA's periodic reconcile comes due: at its namespace's phase instant, so a namespace's
// DHAs come due together whenever each was last reconciled, never more than a period (plus the
// slack) away, and spread over the period across namespaces.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "pipeline/cycle_phase.hpp"

namespace dha::pipeline {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using WallTime = std::chrono::system_clock::time_point;

milliseconds ms(kube::Duration d) { return std::chrono::duration_cast<milliseconds>(d); }

// The instant of `ns`'s phase in the period that starts at `period_start` (a multiple of the
// period since the epoch).
WallTime phase_instant(const std::string& ns, WallTime period_start, seconds period) {
  return period_start + namespace_phase(ns, period);
}

const WallTime kPeriodStart{seconds(1'800'000'000 / 60 * 60)};  // a multiple of 60 s since the epoch

TEST(CyclePhase, APhaseIsStableAndInsideThePeriod) {
  // Part of the contract: every replica and every version puts a namespace at the same offset.
  EXPECT_EQ(namespace_phase("tenant-a", seconds(60)), namespace_phase("tenant-a", seconds(60)));
  for (const auto* ns : {"", "a", "tenant-a", "tenant-b", "tenant-with-a-rather-long-name-0123456789"}) {
    for (const auto period : {seconds(1), seconds(10), seconds(60), seconds(3600)}) {
      const auto phase = namespace_phase(ns, period);
      EXPECT_GE(phase.count(), 0) << ns;
      EXPECT_LT(phase, period) << ns;
    }
  }
  EXPECT_NE(namespace_phase("tenant-a", seconds(60)), namespace_phase("tenant-b", seconds(60)))
      << "namespaces that differ in the last byte are apart";
}

struct WaitCase {
  const char* name;
  milliseconds ended_after_phase;  // when the reconcile ended, relative to the phase instant
  milliseconds want_wait;          // with a 60 s period (slack 1 s)
};

class UntilNextPhase : public ::testing::TestWithParam<WaitCase> {};

TEST_P(UntilNextPhase, WaitsForTheNamespacesNextPhaseInstant) {
  const auto& c = GetParam();
  const auto phase = phase_instant("tenant-a", kPeriodStart, seconds(60));
  const auto ended = phase + c.ended_after_phase;
  EXPECT_EQ(ms(until_next_phase("tenant-a", ended, seconds(60))), c.want_wait);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, UntilNextPhase,
    ::testing::Values(
        WaitCase{"on_the_phase_waits_a_whole_period", milliseconds(0), milliseconds(60'000)},
        WaitCase{"a_late_reconcile_does_not_drift_the_next", milliseconds(2'500), milliseconds(57'500)},
        WaitCase{"a_reconcile_that_ran_long_keeps_the_phase", milliseconds(59'500), milliseconds(500 + 60'000)},
        WaitCase{"ending_just_before_the_phase_skips_to_the_next", milliseconds(-400), milliseconds(60'400)},
        WaitCase{"ending_exactly_the_slack_before_skips_too", milliseconds(-1'000), milliseconds(61'000)},
        WaitCase{"ending_more_than_the_slack_before_runs_at_the_phase", milliseconds(-1'001), milliseconds(1'001)},
        WaitCase{"from_the_middle_of_the_period", milliseconds(-30'000), milliseconds(30'000)}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(CyclePhase, DhasOfANamespaceComeDueTogetherWheneverEachWasReconciled) {
  // Reconciled at scattered times (created at different moments, woken by watch events): each
  // one's next reconcile is the same instant.
  const auto first = kPeriodStart + milliseconds(12'345);
  const auto due = first + until_next_phase("tenant-a", first, seconds(60));
  for (const auto offset : {milliseconds(1'000), milliseconds(17'000), milliseconds(44'000)}) {
    const auto now = first + offset;
    const auto next = now + until_next_phase("tenant-a", now, seconds(60));
    EXPECT_TRUE(next == due || next == due + seconds(60)) << "reconciled " << offset.count() << " ms after the first";
  }
  // A period later, both are on the same instant again.
  const auto again = due + until_next_phase("tenant-a", due, seconds(60));
  EXPECT_EQ(again, due + seconds(60));
}

TEST(CyclePhase, TheWaitIsNeverLongerThanAPeriodPlusTheSlack) {
  for (const auto period : {seconds(1), seconds(5), seconds(60)}) {
    const auto slack = std::min(milliseconds(1'000), std::chrono::duration_cast<milliseconds>(period) / 10);
    for (int step = 0; step < 2'000; ++step) {
      const auto now = kPeriodStart + milliseconds(step * 37);
      const auto wait = ms(until_next_phase("tenant-a", now, period));
      EXPECT_GT(wait, slack) << "period " << period.count() << " s, step " << step;
      EXPECT_LE(wait, period + slack) << "period " << period.count() << " s, step " << step;
    }
  }
}

TEST(CyclePhase, NamespacesSpreadOverThePeriod) {
  // 1 000 namespaces of the same shape over a 60 s period, in ten 6 s slices: no slice gets more
  // than twice its share, so a sync period's reconciles do not all come due at once.
  std::map<int, int> per_slice;
  for (int i = 0; i < 1000; ++i)
    ++per_slice[static_cast<int>(namespace_phase("tenant-" + std::to_string(i), seconds(60)).count() / 6'000)];
  for (int s = 0; s < 10; ++s) EXPECT_LT(per_slice[s], 200) << "slice " << s;
}

}  // namespace
}  // namespace dha::pipeline
