#include <gtest/gtest.h>

#include "dha/kube/rate_limiter.hpp"

namespace dha::kube {
namespace {

using std::chrono::milliseconds;

TEST(KubeTokenBucket, BurstThenQps) {
  FakeClock clock;
  TokenBucket bucket(10, 3, clock);  // 10/s = one token per 100ms
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.reserve(), Duration::zero()) << i;
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.reserve()), milliseconds(100));
  EXPECT_EQ(std::chrono::duration_cast<milliseconds>(bucket.reserve()), milliseconds(200)) << "reservations queue up";
  clock.advance(milliseconds(300));  // pays back both reservations, then one more token
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_GT(bucket.reserve(), Duration::zero());
}

TEST(KubeTokenBucket, RefillIsCappedAtBurst) {
  FakeClock clock;
  TokenBucket bucket(100, 2, clock);
  clock.advance(std::chrono::hours(1));
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_EQ(bucket.reserve(), Duration::zero());
  EXPECT_GT(bucket.reserve(), Duration::zero()) << "idle time must not bank more than burst tokens";
}

TEST(KubeTokenBucket, ZeroQpsDisablesLimit) {
  FakeClock clock;
  TokenBucket bucket(0, 1, clock);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(bucket.reserve(), Duration::zero());
}

}  // namespace
}  // namespace dha::kube
