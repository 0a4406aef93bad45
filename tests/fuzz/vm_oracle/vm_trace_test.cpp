// The oracle's reading of VictoriaMetrics' query traces: messages as victoria-metrics 1.79.5
// writes them.

#include "vm_trace.hpp"

#include <gtest/gtest.h>

namespace dha::fuzz {
namespace {

TEST(VmTrace, UnquotesGoStrings) {
  std::string_view text = R"("a\"b\\c\nd\x41\u00e9\t" rest)";
  const auto v = go_unquote(text);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, "a\"b\\c\ndA\xc3\xa9\t");
  EXPECT_EQ(text, " rest");
  std::string_view open = R"("never closed)";
  EXPECT_FALSE(go_unquote(open).has_value());
  std::string_view bad = R"("\q")";
  EXPECT_FALSE(go_unquote(bad).has_value());
}

TEST(VmTrace, ReadsTheFiltersOfAFetch) {
  const auto step = parse_fetch_message(
      R"(fetch matching series: filters=[{__name__="x",namespace="a\"b\\\\c\nd",__name__=~"x|y"}], )"
      R"(timeRange=[2026-12-05T06:25:34.986Z..2026-12-05T06:35:34.986Z])");
  ASSERT_TRUE(step.has_value());
  ASSERT_TRUE(step->error.empty()) << step->error;
  ASSERT_EQ(step->groups.size(), 1u);
  const FilterGroup& g = step->groups[0];
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[1].label, "namespace");
  EXPECT_EQ(g[1].op, "=");
  EXPECT_EQ(g[1].value, "a\"b\\\\c\nd");
  EXPECT_EQ(g[2].op, "=~");
  EXPECT_TRUE(pinned_to(g, "a\"b\\\\c\nd"));
  EXPECT_FALSE(pinned_to(g, "a"));
}

TEST(VmTrace, NamespaceMustBeAnEqualityMatcher) {
  const auto step = parse_fetch_message(R"(fetch matching series: filters=[{__name__="x",namespace=~"tenant-a"}], t)");
  ASSERT_TRUE(step.has_value());
  ASSERT_EQ(step->groups.size(), 1u);
  EXPECT_FALSE(pinned_to(step->groups[0], "tenant-a"));
  const auto two = parse_fetch_message(R"(fetch matching series: filters=[{namespace="tenant-a"},{__name__="y"}], t)");
  ASSERT_TRUE(two.has_value());
  ASSERT_EQ(two->groups.size(), 2u);
  EXPECT_TRUE(pinned_to(two->groups[0], "tenant-a"));
  EXPECT_FALSE(pinned_to(two->groups[1], "tenant-a"));
}

TEST(VmTrace, OtherMessagesAreNotFetches) {
  EXPECT_FALSE(parse_fetch_message(R"(init series search: filters=[{__name__="x"}])").has_value());
  const auto broken = parse_fetch_message(R"(fetch matching series: filters=[{__name__"x"}])");
  ASSERT_TRUE(broken.has_value());
  EXPECT_FALSE(broken->error.empty());
}

TEST(VmTrace, ReadsAWholeAnswer) {
  const std::string body =
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"b":"2","a":"1"},"value":[1,"3"]}]},)"
      R"("trace":{"message":"eval","children":[{"message":"fetch matching series: filters=[{__name__=\"x\",namespace=\"n\"}], t"}]}})";
  const TracedAnswer a = read_traced_answer(body);
  EXPECT_EQ(a.status, "success");
  EXPECT_TRUE(a.has_trace);
  ASSERT_EQ(a.fetches.size(), 1u);
  EXPECT_TRUE(pinned_to(a.fetches[0].groups.at(0), "n"));
  EXPECT_EQ(a.result, "vector:{a=1,b=2,} 1.000000=3\n");
  const TracedAnswer e = read_traced_answer(R"({"status":"error","errorType":"422","error":"unknown func \"f\""})");
  EXPECT_EQ(e.status, "error");
  EXPECT_EQ(e.error, "unknown func \"f\"");
}

}  // namespace
}  // namespace dha::fuzz
