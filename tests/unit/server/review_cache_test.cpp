// The verdict cache and the attempt limiter an API-backed authorizer puts in front of the API
// server.

#include "dha/server/review_cache.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace dha::server {
namespace {

using namespace std::chrono_literals;

TEST(ReviewCache, AFloodOfRefusedTokensNeverEvictsAnAllowedOne) {
  ReviewCache cache(60s, 4, 100);
  cache.store("scraper", "/metrics", {true, 200, ""});
  for (int i = 0; i < 10000; ++i) cache.store("invented-" + std::to_string(i), "/metrics", {false, 401, "no"});
  AuthorizationResult got;
  ASSERT_TRUE(cache.lookup("scraper", "/metrics", got));
  EXPECT_TRUE(got.allowed);
  EXPECT_EQ(cache.refused_entries(), 100u);
  EXPECT_EQ(cache.allowed_entries(), 1u);
  // The most recent refusals are the ones kept.
  EXPECT_TRUE(cache.lookup("invented-9999", "/metrics", got));
  EXPECT_FALSE(cache.lookup("invented-0", "/metrics", got));
}

TEST(ReviewCache, KeysAreTokenAndPathAndVerdictsExpire) {
  ReviewCache cache(50ms, 4, 4);
  cache.store("t", "/metrics", {true, 200, ""});
  AuthorizationResult got;
  EXPECT_FALSE(cache.lookup("t", "/other", got));
  EXPECT_FALSE(cache.lookup("u", "/metrics", got));
  EXPECT_TRUE(cache.lookup("t", "/metrics", got));
  // A changed verdict replaces the old one on the other side.
  cache.store("t", "/metrics", {false, 403, "revoked"});
  ASSERT_TRUE(cache.lookup("t", "/metrics", got));
  EXPECT_FALSE(got.allowed);
  EXPECT_EQ(cache.allowed_entries(), 0u);
  std::this_thread::sleep_for(80ms);
  EXPECT_FALSE(cache.lookup("t", "/metrics", got));
  ReviewCache off(0ms, 4, 4);
  off.store("t", "/metrics", {true, 200, ""});
  EXPECT_FALSE(off.lookup("t", "/metrics", got));
}

TEST(AttemptLimiter, EachPeerHasItsShareAndAllTogetherTheirs) {
  AttemptLimiter limiter(
      {.per_peer_per_second = 0.001, .per_peer_burst = 3, .total_per_second = 0.001, .total_burst = 5, .max_peers = 2});
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.try_take("10.0.0.1")) << i;
  EXPECT_FALSE(limiter.try_take("10.0.0.1"));
  EXPECT_TRUE(limiter.try_take("10.0.0.2"));
  EXPECT_TRUE(limiter.try_take("10.0.0.2"));
  EXPECT_FALSE(limiter.try_take("10.0.0.3")) << "the total of 5 is spent";
}

TEST(PeerAddress, DropsThePort) {
  EXPECT_EQ(peer_address("10.0.0.1:5312"), "10.0.0.1");
  EXPECT_EQ(peer_address("[::1]:80"), "::1");
  EXPECT_EQ(peer_address("::1:80"), "::1");
  EXPECT_EQ(peer_address("unknown"), "unknown");
}

}  // namespace
}  // namespace dha::server
