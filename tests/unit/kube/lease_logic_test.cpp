#include <gtest/gtest.h>

#include "dha/kube/config.hpp"
#include "dha/kube/leader_election.hpp"

namespace dha::kube {
namespace {

using std::chrono::seconds;

struct LeaseCase {
  const char* name;
  bool exists;
  std::string holder;
  int duration_seconds;
  Duration since_observed;
  LeaseAction want;
};

class KubeLeaseDecision : public testing::TestWithParam<LeaseCase> {};

TEST_P(KubeLeaseDecision, Decides) {
  const auto& c = GetParam();
  const TimePoint observed = TimePoint{} + std::chrono::hours(5);
  LeaseRecord r;
  r.holder = c.holder;
  r.lease_duration_seconds = c.duration_seconds;
  EXPECT_EQ(decide_lease(c.exists ? &r : nullptr, "me", observed, observed + c.since_observed, seconds(15)), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, KubeLeaseDecision,
    testing::Values(LeaseCase{"no_lease_acquires", false, "", 15, seconds(0), LeaseAction::Acquire},
                    LeaseCase{"released_lease_acquires", true, "", 15, seconds(0), LeaseAction::Acquire},
                    LeaseCase{"own_lease_renews", true, "me", 15, seconds(100), LeaseAction::Renew},
                    LeaseCase{"other_fresh_waits", true, "other", 15, seconds(14), LeaseAction::Wait},
                    LeaseCase{"other_expired_exactly_acquires", true, "other", 15, seconds(15), LeaseAction::Acquire},
                    LeaseCase{"other_long_expired_acquires", true, "other", 15, seconds(60), LeaseAction::Acquire},
                    LeaseCase{"record_duration_wins", true, "other", 3, seconds(3), LeaseAction::Acquire},
                    LeaseCase{"missing_duration_uses_fallback", true, "other", 0, seconds(14), LeaseAction::Wait}),
    [](const testing::TestParamInfo<LeaseCase>& info) { return std::string(info.param.name); });

TEST(KubeRenewDeadline, StopsAtTheDeadline) {
  const TimePoint t{};
  EXPECT_FALSE(renew_deadline_passed(t, t + seconds(9), seconds(10)));
  EXPECT_TRUE(renew_deadline_passed(t, t + seconds(10), seconds(10)));
}

TEST(KubeMicroTime, Formats) {
  const auto t = std::chrono::system_clock::time_point{} + seconds(1764464553) + std::chrono::microseconds(42);
  EXPECT_EQ(format_micro_time(t), "2025-11-30T01:02:33.000042Z");
}

TEST(KubeLeaderElectorConfig, RejectsInconsistentTimings) {
  Config cfg;
  cfg.server = "http://127.0.0.1:1";
  LeaderElectionConfig le;
  le.identity = "pod-a";
  le.lease_namespace = "sys";
  le.renew_deadline = le.lease_duration;
  EXPECT_THROW(LeaderElector(cfg, le), std::invalid_argument);
  le.renew_deadline = seconds(10);
  le.retry_period = seconds(10);
  EXPECT_THROW(LeaderElector(cfg, le), std::invalid_argument);
  le.retry_period = seconds(2);
  le.identity.clear();
  EXPECT_THROW(LeaderElector(cfg, le), std::invalid_argument);
}

}  // namespace
}  // namespace dha::kube
