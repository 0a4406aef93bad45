#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "dha/sdk/values.hpp"

namespace dha::sdk::values {
namespace {

// How every adapter reads Application values (sdk/include/dha/sdk/values.hpp), one row per rule.
struct IntCase {
  const char* name;
  const char* spec;
  int32_t want;
};

TEST(SdkValues, ReadIntFollowsTheReferenceRules) {
  const IntCase cases[] = {
      {"integer", R"({"n": 3})", 3},
      {"float is truncated", R"({"n": 3.9})", 3},
      {"negative float truncates toward zero", R"({"n": -2.7})", -2},
      {"missing gives default", R"({})", 42},
      {"string is not a number", R"({"n": "3"})", 42},
      {"bool is not a number", R"({"n": true})", 42},
      {"null gives default", R"({"n": null})", 42},
      {"huge saturates, never wraps", R"({"n": 1e12})", INT32_MAX},
      {"huge negative saturates", R"({"n": -1e12})", INT32_MIN},
      {"spec not an object", R"([1])", 42},
  };
  for (const auto& c : cases) {
    const json::Document doc = json::parse(c.spec, "spec");
    EXPECT_EQ(read_int(doc, "n", 42), c.want) << c.name;
  }
}

TEST(SdkValues, ReadIntFollowsDotPaths) {
  const json::Document doc = json::parse(R"({"quorum": {"maxSyncReplicas": 2}})", "spec");
  EXPECT_EQ(read_int(doc, "quorum.maxSyncReplicas", 0), 2);
  EXPECT_EQ(read_int(doc, "quorum.minSyncReplicas", 5), 5);
}

TEST(SdkValues, ReadBoolOnlyForRealBooleans) {
  const struct {
    const char* spec;
    bool fallback;
    bool want;
  } cases[] = {
      {R"({"b": true})", false, true}, {R"({"b": false})", true, false},  {R"({"b": "true"})", false, false},
      {R"({"b": 1})", false, false},   {R"({"b": "false"})", true, true}, {R"({})", true, true},
  };
  for (const auto& c : cases) {
    const json::Document doc = json::parse(c.spec, "spec");
    EXPECT_EQ(read_bool(doc, "b", c.fallback), c.want) << c.spec;
  }
}

TEST(SdkValues, ReadReplicasIsEmptyWhenMissingNeverZero) {
  const struct {
    const char* object;
    std::optional<int32_t> want;
  } cases[] = {
      {R"({"spec": {"replicas": 3}})", 3},
      {R"({"spec": {"replicas": 0}})", 0},
      {R"({"spec": {"replicas": 2.5}})", 2},
      {R"({"spec": {}})", std::nullopt},
      {R"({"spec": {"replicas": "3"}})", std::nullopt},
      {R"({"spec": {"replicas": null}})", std::nullopt},
      {R"({})", std::nullopt},
  };
  for (const auto& c : cases) {
    const json::Document doc = json::parse(c.object, "object");
    EXPECT_EQ(read_replicas(doc, "spec.replicas"), c.want) << c.object;
  }
}

}  // namespace
}  // namespace dha::sdk::values

namespace {

// For the quota ceiling, explicit resources count only as two non-empty strings; anything else
// falls back to the preset (nullopt), so every adapter reads them the same way.
TEST(SdkValues, ReadResourcesOnlyForTwoNonEmptyStrings) {
  struct Case {
    const char* spec;
    std::optional<dha::sdk::Resources> expected;
  };
  const Case cases[] = {
      {R"({"resources": {"cpu": "500m", "memory": "1Gi"}})", dha::sdk::Resources{"500m", "1Gi"}},
      {R"({"resources": {"cpu": 2, "memory": "1Gi"}})", std::nullopt},
      {R"({"resources": {"cpu": "", "memory": "1Gi"}})", std::nullopt},
      {R"({"resources": {"cpu": "1"}})", std::nullopt},
      {R"({})", std::nullopt},
  };
  for (const auto& c : cases) {
    rapidjson::Document spec;
    spec.Parse(c.spec);
    EXPECT_EQ(dha::sdk::values::read_resources(spec), c.expected) << c.spec;
  }
  rapidjson::Document cluster;
  cluster.Parse(R"({"resources": {"requests": {"cpu": "1", "memory": "2Gi"}}})");
  EXPECT_EQ(dha::sdk::values::read_resources(cluster, "resources.requests.cpu", "resources.requests.memory"),
            (dha::sdk::Resources{"1", "2Gi"}));
}

}  // namespace
