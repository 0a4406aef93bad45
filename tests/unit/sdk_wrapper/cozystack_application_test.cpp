#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "dha/sdk/cozystack_application.hpp"

namespace dha::sdk {
namespace {

constexpr CozystackApplication kApp{"keydb", "KeyDB", "keydb", "t1.nano"};

Topology topology_of(const char* object) {
  const json::Document doc = json::parse(object, "object");
  return cozystack_application_topology(ObjectView(doc), kApp);
}

TEST(SdkCozystackApplication, ReadsTheSharedTopology) {
  const Topology t = topology_of(R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KeyDB",
      "metadata": {"name": "cache", "namespace": "tenant-a"},
      "spec": {"replicas": 3, "resources": {"cpu": "500m", "memory": "1Gi"}, "resourcesPreset": "t1.large"}})");
  EXPECT_EQ(t.primary_count, 1);
  EXPECT_EQ(t.quorum_floor, 1);
  EXPECT_TRUE(t.scalable);
  EXPECT_EQ(t.current_replicas, std::optional<int64_t>(3));
  EXPECT_EQ(t.replicas_path, "spec.replicas");
  EXPECT_EQ(t.release_name, "keydb-cache");
  EXPECT_EQ(t.health, HealthSource::workload_monitor("keydb-cache"));
  ASSERT_TRUE(t.resources.has_value());
  EXPECT_EQ(t.resources->cpu, "500m");
  EXPECT_EQ(t.resources_preset, "t1.large");
}

TEST(SdkCozystackApplication, DefaultsThePresetAndRefusesToScaleWithoutReplicas) {
  const Topology t = topology_of(
      R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KeyDB", "metadata": {"name": "cache"}, "spec": {}})");
  EXPECT_EQ(t.resources_preset, "t1.nano");
  EXPECT_FALSE(t.resources.has_value());
  EXPECT_FALSE(t.current_replicas.has_value());
  EXPECT_FALSE(t.scalable);
  EXPECT_EQ(t.reason, kNoReplicasValueReason);
}

TEST(SdkCozystackApplication, RefusesOtherKindsGroupsAndNamelessObjects) {
  const struct {
    const char* object;
    const char* message;
  } cases[] = {
      {R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "Redis", "metadata": {"name": "c"}})",
       "keydb: cannot read a target of kind Redis (apps.cozystack.io/v1alpha1)"},
      {R"({"apiVersion": "example.com/v1", "kind": "KeyDB", "metadata": {"name": "c"}})",
       "keydb: cannot read a target of kind KeyDB (example.com/v1)"},
      {R"({"apiVersion": "apps.cozystack.io/v1alpha1", "kind": "KeyDB", "metadata": {}})",
       "keydb: the target has no metadata.name"},
  };
  for (const auto& c : cases) {
    try {
      (void)topology_of(c.object);
      ADD_FAILURE() << c.object << ": expected INVALID_ARGUMENT";
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT) << c.object;
      EXPECT_EQ(std::string(e.what()), c.message);
    }
  }
}

}  // namespace
}  // namespace dha::sdk
