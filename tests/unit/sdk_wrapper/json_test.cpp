#include <gtest/gtest.h>

#include <string>

#include "dha/sdk/json.hpp"

namespace dha::sdk::json {
namespace {

TEST(SdkJson, ParseRejectsMalformedTextWithOffset) {
  try {
    (void)parse("{\"a\": ", "config");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("config: malformed JSON at offset"), std::string::npos) << e.what();
  }
}

TEST(SdkJson, ParseRejectsTrailingGarbage) { EXPECT_THROW((void)parse("{} x", "in"), Error); }

TEST(SdkJson, ParseRefusesDeepNestingInsteadOfRecursing) {
  const std::string deep(100000, '[');
  try {
    (void)parse(deep, "in");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper"), std::string::npos);
  }
  const std::string ok = std::string(kMaxDepth, '[') + std::string(kMaxDepth, ']');
  EXPECT_NO_THROW((void)parse(ok, "in"));
}

TEST(SdkJson, BracketsInsideStringsDoNotCountAsNesting) {
  const std::string text = "{\"a\": \"" + std::string(500, '[') + "\\\"[[\"}";
  EXPECT_EQ(nesting_depth(text), 1);
  EXPECT_NO_THROW((void)parse(text, "in"));
}

TEST(SdkJson, ParseObjectRefusesNonObjects) {
  EXPECT_THROW((void)parse_object("[1]", "in"), Error);
  EXPECT_NO_THROW((void)parse_object("{}", "in"));
}

TEST(SdkJson, FindPathFollowsObjectsOnly) {
  const Document doc = parse(R"({"spec": {"quorum": {"max": 2}, "list": [1]}})", "in");
  ASSERT_NE(find_path(doc, "spec.quorum.max"), nullptr);
  EXPECT_EQ(find_path(doc, "spec.quorum.max")->GetInt(), 2);
  EXPECT_EQ(find_path(doc, "spec.quorum.min"), nullptr);
  EXPECT_EQ(find_path(doc, "spec.list.0"), nullptr);
  EXPECT_EQ(find_path(doc, "spec.quorum.max.deeper"), nullptr);
  EXPECT_EQ(find_path(doc, ""), &static_cast<const Value&>(doc));
}

TEST(SdkJson, PathStepsSplitADotPath) {
  EXPECT_EQ(path_steps("spec.quorum.max"), (std::vector<std::string_view>{"spec", "quorum", "max"}));
  EXPECT_EQ(path_steps("replicas"), (std::vector<std::string_view>{"replicas"}));
  EXPECT_TRUE(path_steps("").empty());
}

TEST(SdkJson, AnnotationReadsKeysWithDotsAndSlashes) {
  const Document doc = parse(R"({"metadata": {"annotations": {"autoscaling.cozystack.io/managed-by": "db",
      "count": 4}}})",
                             "in");
  EXPECT_EQ(annotation(doc, "autoscaling.cozystack.io/managed-by"), "db");
  EXPECT_EQ(annotation(doc, "count"), "");  // not a string
  EXPECT_EQ(annotation(doc, "missing"), "");
  EXPECT_EQ(annotation(parse(R"({"metadata": {}})", "in"), "x"), "");
}

TEST(SdkJson, TypedReadersNameTheField) {
  const Document doc = parse(R"({"n": "x", "i": 2.5, "j": 3.0, "b": 1})", "in");
  try {
    (void)require_integer(doc, "n", "topology");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "topology: field 'n' must be an integer");
  }
  EXPECT_THROW((void)require_integer(doc, "i", "t"), Error);
  EXPECT_EQ(require_integer(doc, "j", "t"), 3);
  EXPECT_THROW((void)optional_bool(doc, "b", "t"), Error);
  EXPECT_EQ(integer_or(doc, "missing", 7, "t"), 7);
  EXPECT_THROW((void)require_string(doc, "missing", "t"), Error);
}

TEST(SdkJson, TruncationSaturates) {
  const Document doc = parse(R"([1e300, -1e300, 2.9, -2.9, 18446744073709551615])", "in");
  const auto& a = doc.GetArray();
  EXPECT_EQ(truncate_to_int64(a[0]), INT64_MAX);
  EXPECT_EQ(truncate_to_int64(a[1]), INT64_MIN);
  EXPECT_EQ(truncate_to_int64(a[2]), 2);
  EXPECT_EQ(truncate_to_int64(a[3]), -2);
  EXPECT_EQ(truncate_to_int64(a[4]), INT64_MAX);
}

}  // namespace
}  // namespace dha::sdk::json
