// The per-object event budget: a burst, then one per refill interval, each object on its own.
#include "dha/kube/event_spam_filter.hpp"

#include <gtest/gtest.h>

namespace dha::kube {
namespace {

using namespace std::chrono_literals;

int allowed_of(EventSpamFilter& filter, const std::string& object, int tries) {
  int allowed = 0;
  for (int i = 0; i < tries; ++i) allowed += filter.allow(object) ? 1 : 0;
  return allowed;
}

TEST(EventSpamFilter, AFloodOfWritesGetsTheBurstThenOnePerInterval) {
  FakeClock clock;
  EventSpamFilter filter(clock);
  // 150 spec writes in 9 s, each of which would record an event.
  int allowed = 0;
  for (int i = 0; i < 150; ++i) {
    allowed += filter.allow("tenant-a/DatabaseHorizontalAutoscaler/db") ? 1 : 0;
    clock.advance(60ms);
  }
  EXPECT_EQ(allowed, 25);
  EXPECT_EQ(filter.dropped(), 125u);
  clock.advance(5min);
  EXPECT_EQ(allowed_of(filter, "tenant-a/DatabaseHorizontalAutoscaler/db", 10), 1) << "one per 5 minutes";
  clock.advance(2min);
  EXPECT_EQ(allowed_of(filter, "tenant-a/DatabaseHorizontalAutoscaler/db", 10), 0);
}

TEST(EventSpamFilter, OneObjectsFloodLeavesOthersTheirBurst) {
  FakeClock clock;
  EventSpamFilter filter(clock);
  EXPECT_EQ(allowed_of(filter, "tenant-a/x", 100), 25);
  EXPECT_EQ(allowed_of(filter, "tenant-b/y", 100), 25);
}

TEST(EventSpamFilter, AQuietObjectEarnsItsBurstBack) {
  FakeClock clock;
  EventSpamFilterOptions o;
  o.burst = 3;
  o.refill = 10s;
  EventSpamFilter filter(clock, o);
  EXPECT_EQ(allowed_of(filter, "x", 10), 3);
  clock.advance(1h);
  EXPECT_EQ(allowed_of(filter, "x", 10), 3) << "never more than the burst, however long it was quiet";
}

TEST(EventSpamFilter, ForgetsTheLeastRecentObjectBeyondItsLimit) {
  FakeClock clock;
  EventSpamFilterOptions o;
  o.burst = 1;
  o.max_tracked = 2;
  EventSpamFilter filter(clock, o);
  EXPECT_TRUE(filter.allow("a"));
  clock.advance(1ms);
  EXPECT_TRUE(filter.allow("b"));
  clock.advance(1ms);
  EXPECT_TRUE(filter.allow("c"));  // "a" forgotten
  EXPECT_FALSE(filter.allow("b"));
}

}  // namespace
}  // namespace dha::kube
