// free_loopback_port() must not hand out a port that outgoing connections can take meanwhile.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "dha/testing/victoria_metrics.hpp"

TEST(FreeLoopbackPort, IsOutsideTheEphemeralRangeAndVaries) {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int lo = 0, hi = 0;
  ASSERT_TRUE(in >> lo >> hi);
  std::set<uint16_t> seen;
  for (int i = 0; i < 20; ++i) {
    const uint16_t port = dha::testing::free_loopback_port();
    EXPECT_TRUE(port < lo || port > hi) << port << " is in the ephemeral range " << lo << "-" << hi;
    seen.insert(port);
  }
  EXPECT_GT(seen.size(), 10u) << "two tests picking at once would collide";
}
