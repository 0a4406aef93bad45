#include "pipeline/quota_ceiling.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace dha::pipeline {
namespace {

constexpr std::int64_t Mi = 1024LL * 1024 * 1000;  // milli-bytes
constexpr std::int64_t Gi = 1024 * Mi;

struct PresetCell {
  const char* preset;
  std::int64_t cpu_milli;
  std::int64_t memory_milli;
};

// Every cell of the ladder and the legacy aliases, written out by hand.
const PresetCell kLadder[] = {
    {"t1.nano", 250, 128 * Mi},      {"t1.micro", 500, 256 * Mi},     {"t1.small", 1000, 512 * Mi},
    {"t1.medium", 2000, 1 * Gi},     {"t1.large", 4000, 2 * Gi},      {"t1.xlarge", 8000, 4 * Gi},
    {"t1.2xlarge", 16000, 8 * Gi},   {"t1.4xlarge", 32000, 16 * Gi},  {"c1.nano", 250, 256 * Mi},
    {"c1.micro", 500, 512 * Mi},     {"c1.small", 1000, 1 * Gi},      {"c1.medium", 2000, 2 * Gi},
    {"c1.large", 4000, 4 * Gi},      {"c1.xlarge", 8000, 8 * Gi},     {"c1.2xlarge", 16000, 16 * Gi},
    {"c1.4xlarge", 32000, 32 * Gi},  {"s1.nano", 250, 512 * Mi},      {"s1.micro", 500, 1 * Gi},
    {"s1.small", 1000, 2 * Gi},      {"s1.medium", 2000, 4 * Gi},     {"s1.large", 4000, 8 * Gi},
    {"s1.xlarge", 8000, 16 * Gi},    {"s1.2xlarge", 16000, 32 * Gi},  {"s1.4xlarge", 32000, 64 * Gi},
    {"u1.nano", 250, 1 * Gi},        {"u1.micro", 500, 2 * Gi},       {"u1.small", 1000, 4 * Gi},
    {"u1.medium", 2000, 8 * Gi},     {"u1.large", 4000, 16 * Gi},     {"u1.xlarge", 8000, 32 * Gi},
    {"u1.2xlarge", 16000, 64 * Gi},  {"u1.4xlarge", 32000, 128 * Gi}, {"m1.nano", 250, 2 * Gi},
    {"m1.micro", 500, 4 * Gi},       {"m1.small", 1000, 8 * Gi},      {"m1.medium", 2000, 16 * Gi},
    {"m1.large", 4000, 32 * Gi},     {"m1.xlarge", 8000, 64 * Gi},    {"m1.2xlarge", 16000, 128 * Gi},
    {"m1.4xlarge", 32000, 256 * Gi}, {"nano", 250, 128 * Mi},         {"micro", 500, 256 * Mi},
    {"small", 1000, 512 * Mi},       {"medium", 1000, 1 * Gi},        {"large", 2000, 2 * Gi},
    {"xlarge", 4000, 4 * Gi},        {"2xlarge", 8000, 8 * Gi},
};

TEST(PresetLadder, EveryCellMatchesTheTable) {
  for (const auto& cell : kLadder) {
    SCOPED_TRACE(cell.preset);
    const auto r = preset_resources(cell.preset);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->cpu_milli, cell.cpu_milli);
    EXPECT_EQ(r->memory_milli, cell.memory_milli);
  }
}

TEST(PresetLadder, UnknownPresetsHaveNoResources) {
  for (const char* p : {"4xlarge", "t2.micro", "T1.MICRO", "", "t1.", "x1.nano", "t1.micro "}) {
    SCOPED_TRACE(p);
    EXPECT_FALSE(preset_resources(p).has_value());
  }
}

TEST(PerPodResources, ExplicitStringsWinOverThePreset) {
  EXPECT_EQ(per_pod_resources(std::string("2"), std::string("3Gi"), "t1.micro"), (PodResources{2000, 3 * Gi}));
  EXPECT_EQ(per_pod_resources(std::string("250m"), std::string("100M"), ""), (PodResources{250, 100000000000LL}));
}

TEST(PerPodResources, IncompleteOrUnparsableExplicitValuesFallBackToThePreset) {
  const PodResources micro{500, 256 * Mi};
  EXPECT_EQ(per_pod_resources(std::string("2"), std::nullopt, "t1.micro"), micro);
  EXPECT_EQ(per_pod_resources(std::nullopt, std::string("1Gi"), "t1.micro"), micro);
  EXPECT_EQ(per_pod_resources(std::string(""), std::string("1Gi"), "t1.micro"), micro);
  EXPECT_EQ(per_pod_resources(std::string("two"), std::string("1Gi"), "t1.micro"), micro);
}

TEST(PerPodResources, NoPresetOrAnUnknownOneMeansNoCeiling) {
  EXPECT_FALSE(per_pod_resources(std::nullopt, std::nullopt, "").has_value());
  EXPECT_FALSE(per_pod_resources(std::nullopt, std::nullopt, "huge").has_value());
}

rapidjson::Document quota(const std::string& hard_used_json) {
  rapidjson::Document d;
  d.Parse(("{\"kind\":\"ResourceQuota\",\"status\":" + hard_used_json + "}").c_str());
  EXPECT_FALSE(d.HasParseError()) << hard_used_json;
  return d;
}

struct CeilingCase {
  const char* name;
  std::vector<std::string> quotas;  // status objects
  std::int32_t current;
  PodResources per_pod;
  std::optional<std::int32_t> expected;
};

TEST(MaxReplicasWithinQuota, Table) {
  const PodResources micro{500, 256 * Mi};
  const CeilingCase cases[] = {
      {"no quotas", {}, 3, micro, std::nullopt},
      {"quota without cpu or memory", {R"({"hard":{"pods":"10"},"used":{"pods":"3"}})"}, 3, micro, std::nullopt},
      {"requests.cpu headroom of two pods",
       {R"({"hard":{"requests.cpu":"4"},"used":{"requests.cpu":"3"}})"},
       3,
       micro,
       5},
      {"cpu pair", {R"({"hard":{"cpu":"2"},"used":{"cpu":"1500m"}})"}, 2, micro, 3},
      {"limits.cpu pair", {R"({"hard":{"limits.cpu":"3"},"used":{"limits.cpu":"1"}})"}, 2, micro, 6},
      {"requests.memory pair",
       {R"({"hard":{"requests.memory":"1Gi"},"used":{"requests.memory":"512Mi"}})"},
       2,
       micro,
       4},
      {"memory pair", {R"({"hard":{"memory":"1Gi"},"used":{"memory":"1Gi"}})"}, 2, micro, 2},
      {"limits.memory pair", {R"({"hard":{"limits.memory":"1Gi"},"used":{"limits.memory":"0"}})"}, 2, micro, 6},
      {"missing used counts as zero", {R"({"hard":{"requests.cpu":"1"}})"}, 2, micro, 4},
      {"over-used quota gives no headroom, never below current",
       {R"({"hard":{"requests.cpu":"1"},"used":{"requests.cpu":"5"}})"},
       4,
       micro,
       4},
      {"partial pod does not count",
       {R"({"hard":{"requests.cpu":"1999m"},"used":{"requests.cpu":"1000m"}})"},
       2,
       micro,
       3},
      {"the minimum over pairs",
       {R"({"hard":{"requests.cpu":"100","requests.memory":"768Mi"},"used":{}})"},
       1,
       micro,
       4},
      {"the minimum over quotas",
       {R"({"hard":{"requests.cpu":"100"},"used":{}})", R"({"hard":{"requests.cpu":"2"},"used":{"requests.cpu":"1"}})"},
       3,
       micro,
       5},
      {"non-string hard values are skipped", {R"({"hard":{"requests.cpu":4},"used":{}})"}, 3, micro, std::nullopt},
      {"zero per-pod cpu skips the cpu pairs",
       {R"({"hard":{"requests.cpu":"1"},"used":{}})"},
       3,
       PodResources{0, Mi},
       std::nullopt},
      {"huge quota saturates", {R"({"hard":{"requests.cpu":"9E"},"used":{}})"}, 3, PodResources{1, Mi}, INT32_MAX},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<rapidjson::Document> docs;
    for (const auto& q : c.quotas) docs.push_back(quota(q));
    std::vector<const rapidjson::Value*> ptrs;
    for (const auto& d : docs) ptrs.push_back(&d);
    EXPECT_EQ(max_replicas_within_quota(ptrs, c.current, c.per_pod), c.expected);
  }
}

}  // namespace
}  // namespace dha::pipeline
