// The bounded recommendation history: pruning at the window edge and lossless thinning.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dha/model/recommendation_history.hpp"

namespace dha::model {
namespace {

TEST(History, PruneKeepsEntryExactlyAtTheCutoff) {
  std::vector<Recommendation> h = {{99, 5}, {100, 4}, {150, 3}};
  record_recommendation(h, 400, 2, 300);
  EXPECT_EQ(h, (std::vector<Recommendation>{{100, 4}, {150, 3}, {400, 2}}));
}

TEST(History, SortsByTimeKeepingOrderWithinASecond) {
  std::vector<Recommendation> h = {{200, 1}, {100, 2}, {200, 3}};
  prune_recommendations(h, 300, 1000);
  EXPECT_EQ(h, (std::vector<Recommendation>{{100, 2}, {200, 1}, {200, 3}}));
}

TEST(History, ShortHistoriesAreNotThinned) {
  std::vector<Recommendation> h;
  for (int i = 0; i < 64; ++i) h.push_back({i, 3});
  prune_recommendations(h, 64, 1000);
  EXPECT_EQ(h.size(), 64u);
}

// Windowed min and max as the stabilization gate computes them.
std::pair<int, int> window(const std::vector<Recommendation>& h, std::int64_t now, std::int64_t w) {
  int lo = INT32_MAX, hi = INT32_MIN;
  for (const auto& r : h)
    if (now - r.time <= w) {
      lo = std::min(lo, r.replicas);
      hi = std::max(hi, r.replicas);
    }
  return {lo, hi};
}

// Reasonable replica ranges (under 32 distinct values) never lose stabilization information:
// for every later time and every window length, min and max over the window are unchanged.
TEST(History, ThinningNeverChangesAnyWindowResult) {
  std::mt19937 rng(12345);
  int thinned = 0;
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<Recommendation> full;
    std::vector<Recommendation> bounded;
    const std::int64_t longest = 1800;
    std::uniform_int_distribution<int> replicas(2, 2 + trial % 30);
    std::uniform_int_distribution<int> gap(0, 40);
    std::int64_t now = 0;
    for (int i = 0; i < 300; ++i) {
      now += gap(rng);
      const int r = replicas(rng);
      full.push_back({now, r});
      record_recommendation(bounded, now, r, longest);
      ASSERT_LE(bounded.size(), kMaxRecommendations);
      const auto in_window =
          std::count_if(full.begin(), full.end(), [&](const Recommendation& x) { return now - x.time <= longest; });
      thinned += static_cast<std::size_t>(in_window) > bounded.size() ? 1 : 0;
      for (std::int64_t w : {0, 1, 60, 300, 900, 1800})
        for (std::int64_t later : {now, now + 30, now + 600})
          ASSERT_EQ(window(bounded, later, w), window(full, later, w))
              << "trial " << trial << " step " << i << " window " << w << " at " << later;
    }
  }
  EXPECT_GT(thinned, 1000);  // the bound was really exercised
}

TEST(History, PathologicalStaircaseKeepsTheNewest) {
  std::vector<Recommendation> h;
  for (int i = 0; i < 200; ++i) record_recommendation(h, i, 2 + i, 100000);  // all distinct, rising
  ASSERT_EQ(h.size(), kMaxRecommendations);
  EXPECT_EQ(h.back(), (Recommendation{199, 201}));
}

// A falling history (load going away) needs every entry for the scale-down window's maximum.
// Past the bound the oldest, highest counts used to be dropped, so the window's maximum fell
// early and a scale-down came before the window had passed.
TEST(History, AFallingHistoryPastTheBoundNeverLowersAWindowsMaximum) {
  std::vector<Recommendation> full;
  std::vector<Recommendation> bounded;
  const std::int64_t longest = 100000;
  for (int i = 0; i < 200; ++i) {
    full.push_back({i, 300 - i});
    record_recommendation(bounded, i, 300 - i, longest);
    ASSERT_LE(bounded.size(), kMaxRecommendations);
  }
  for (std::int64_t w : {std::int64_t{10}, std::int64_t{100}, std::int64_t{199}, std::int64_t{1000}, longest}) {
    const auto exact = window(full, 199, w);
    const auto kept = window(bounded, 199, w);
    EXPECT_GE(kept.second, exact.second) << "window " << w;
  }
  EXPECT_EQ(window(bounded, 199, longest).second, 300) << "the highest count in the window was lost";
}

}  // namespace
}  // namespace dha::model
