#include <gtest/gtest.h>

#include "dha/kube/reconcile.hpp"

namespace dha::kube {
namespace {

using std::chrono::seconds;

struct ResultCase {
  const char* name;
  ReconcileResult result;
  QueueAction want_action;
  int want_failures_after;  // starting from 2 previous failures
  bool ready_after_1s;
  bool ready_after_30s;
};

class KubeApplyResult : public testing::TestWithParam<ResultCase> {};

TEST_P(KubeApplyResult, TurnsResultIntoQueueAction) {
  const auto& c = GetParam();
  FakeClock clock;
  WorkQueue q(clock, BackoffPolicy{std::chrono::milliseconds(250), seconds(10)});
  q.add_rate_limited("ns/x");
  q.add_rate_limited("ns/x");  // two earlier failures → next backoff 1s
  clock.advance(seconds(1));
  ASSERT_EQ(q.try_get(), "ns/x");

  EXPECT_EQ(apply_result(q, "ns/x", c.result), c.want_action);
  q.done("ns/x");
  EXPECT_EQ(q.failures("ns/x"), c.want_failures_after);
  clock.advance(seconds(1));
  const bool ready_1s = q.try_get().has_value();
  EXPECT_EQ(ready_1s, c.ready_after_1s);
  if (ready_1s) q.done("ns/x");
  clock.advance(seconds(29));
  EXPECT_EQ(q.try_get().has_value(), c.ready_after_30s);
}

INSTANTIATE_TEST_SUITE_P(Table, KubeApplyResult,
                         testing::Values(ResultCase{"done_forgets", Done{}, QueueAction::Forget, 0, false, false},
                                         ResultCase{"requeue_after_forgets_and_schedules", RequeueAfter{seconds(30)},
                                                    QueueAction::RequeueAfter, 0, false, true},
                                         ResultCase{"error_backs_off", Error{"metric outage"},
                                                    QueueAction::RetryWithBackoff, 3, true, false},
                                         ResultCase{"terminal_error_drops", Error{"bad spec", true},
                                                    QueueAction::DropTerminal, 0, false, false}),
                         [](const testing::TestParamInfo<ResultCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dha::kube
