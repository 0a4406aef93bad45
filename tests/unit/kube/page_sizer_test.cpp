// How many objects the next page of a list asks for, when pages are bounded by bytes too.
#include <gtest/gtest.h>

#include <vector>

#include "dha/kube/page_sizer.hpp"

namespace dha::kube {
namespace {

struct Seen {
  std::size_t count;
  std::size_t bytes;
};

struct Case {
  const char* name;
  std::int64_t max_count;
  std::size_t budget;
  std::vector<Seen> pages;         // observed in order
  std::vector<std::int64_t> asks;  // next() before the first page and after each
};

TEST(PageSizer, AsksForWhatTheBudgetHoldsAtTheWeightSeen) {
  const std::vector<Case> cases = {
      {"no budget: every page the limit", 500, 0, {{500, 50'000'000}, {500, 1000}}, {500, 500, 500}},
      {"plain objects: doubling from one up to the limit",
       500,
       2 << 20,
       {{1, 1'000},
        {2, 2'000},
        {4, 4'000},
        {8, 8'000},
        {16, 16'000},
        {32, 32'000},
        {64, 64'000},
        {128, 128'000},
        {256, 256'000}},
       {1, 2, 4, 8, 16, 32, 64, 128, 256, 500}},
      // A first page of more than one padded object would hold several times the budget at once.
      {"padded objects: the first page one, then the budget's worth",
       500,
       2 << 20,
       {{1, 256'000}, {2, 2 * 256'000}, {4, 4 * 256'000}, {8, 8 * 256'000}},
       {1, 2, 4, 8, 8}},
      {"an object heavier than the budget: one at a time", 50, 1 << 20, {{1, 3'000'000}}, {1, 1}},
      {"light after heavy: at most twice the last page",
       500,
       2 << 20,
       {{1, 256'000}, {2, 2 * 256'000}, {4, 4 * 256'000}, {8, 8 * 256'000}, {8, 800}},
       {1, 2, 4, 8, 8, 16}},
      {"an empty page tells nothing", 500, 2 << 20, {{0, 90}}, {1, 1}},
      {"a limit of 5 starts at one too", 5, 2 << 20, {{1, 1000}}, {1, 2}},
      {"a limit of 0 counts as 1", 0, 2 << 20, {{1, 1000}}, {1, 1}},
  };
  for (const auto& c : cases) {
    PageSizer sizer(c.max_count, c.budget);
    std::vector<std::int64_t> asks{sizer.next()};
    for (const auto& p : c.pages) {
      sizer.observe(p.count, p.bytes);
      asks.push_back(sizer.next());
    }
    EXPECT_EQ(asks, c.asks) << c.name;
  }
}

}  // namespace
}  // namespace dha::kube
