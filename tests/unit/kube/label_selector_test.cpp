#include <gtest/gtest.h>

#include "dha/kube/label_selector.hpp"

namespace dha::kube {
namespace {

struct MatchCase {
  const char* name;
  const char* selector;
  Labels labels;
  bool want;
};

class KubeSelectorMatch : public testing::TestWithParam<MatchCase> {};

TEST_P(KubeSelectorMatch, Matches) {
  const auto& c = GetParam();
  EXPECT_EQ(LabelSelector::parse(c.selector).matches(c.labels), c.want) << c.selector;
}

const Labels kPg{{"app", "pg"}, {"tier", "db"}, {"cozystack.io/managed", "true"}};

INSTANTIATE_TEST_SUITE_P(
    Table, KubeSelectorMatch,
    testing::Values(
        MatchCase{"empty_matches_all", "", kPg, true}, MatchCase{"equals", "app=pg", kPg, true},
        MatchCase{"double_equals", "app==pg", kPg, true}, MatchCase{"equals_other_value", "app=redis", kPg, false},
        MatchCase{"equals_missing_key", "zone=a", kPg, false}, MatchCase{"not_equals", "app!=redis", kPg, true},
        MatchCase{"not_equals_missing_key_matches", "zone!=a", kPg, true},
        MatchCase{"not_equals_same", "app!=pg", kPg, false}, MatchCase{"in", "app in (redis, pg)", kPg, true},
        MatchCase{"in_miss", "app in (redis,mongo)", kPg, false}, MatchCase{"notin", "app notin (redis)", kPg, true},
        MatchCase{"notin_missing_key_matches", "zone notin (a)", kPg, true},
        MatchCase{"notin_hit", "app notin (pg)", kPg, false}, MatchCase{"exists", "tier", kPg, true},
        MatchCase{"exists_prefixed", "cozystack.io/managed", kPg, true}, MatchCase{"not_exists", "!zone", kPg, true},
        MatchCase{"not_exists_present", "!tier", kPg, false},
        MatchCase{"conjunction_all", "app=pg, tier=db,!zone", kPg, true},
        MatchCase{"conjunction_one_fails", "app=pg,tier=web", kPg, false},
        MatchCase{"empty_value", "app=", Labels{{"app", ""}}, true}),
    [](const testing::TestParamInfo<MatchCase>& info) { return std::string(info.param.name); });

class KubeSelectorRejects : public testing::TestWithParam<const char*> {};

TEST_P(KubeSelectorRejects, BadInputIsAClearError) {
  try {
    LabelSelector::parse(GetParam());
    FAIL() << "accepted: " << GetParam();
  } catch (const SelectorError& e) {
    EXPECT_NE(std::string(e.what()).find("label selector"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Table, KubeSelectorRejects,
                         testing::Values("app=pg,", ",app", "app in pg", "app in (pg", "app in ()", "app ~ pg",
                                         "app!pg", "-app=x", "app=-x", "a/b/c=x", "app=pg tier=db", "Bad_Prefix.io/x=y",
                                         "app=this-value-is-way-too-long-for-a-label-value-because-it-exceeds-63",
                                         "app notin (a,,b)", "!"));

TEST(KubeLabelSelector, CanonicalText) {
  EXPECT_EQ(LabelSelector::parse("tier=db, app in (b,a,b),!zone").to_string(), "app in (a,b),tier=db,!zone");
  EXPECT_EQ(LabelSelector::from_map({{"b", "2"}, {"a", "1"}}).to_string(), "a=1,b=2");
  EXPECT_TRUE(LabelSelector::parse("  ").empty());
}

TEST(KubeLabelSelector, FromMapValidates) {
  EXPECT_THROW(LabelSelector::from_map({{"bad key", "x"}}), SelectorError);
  EXPECT_THROW(LabelSelector::from_map({{"ok", "bad value"}}), SelectorError);
}

}  // namespace
}  // namespace dha::kube
