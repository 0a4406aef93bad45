#include "dha/actuators/builtin_actuators.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "dha/components/builtin_components.hpp"
#include "dha/sdk/actuator_types.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace dha::actuators {
namespace {

// The built-ins go through the same C ABI path as external plugins.
class BuiltinActuators : public ::testing::Test {
 protected:
  void SetUp() override {
    registry.load_builtin(builtin_actuators_entry(), "actuators");
    merge = registry.create("builtin.merge-patch");
    scale = registry.create("builtin.scale");
  }

  static std::string plan(const plugin_host::PluginInstance& actuator, const std::string& request,
                          bool expect_ok = true) {
    const auto r = actuator.call(actuator.actuator()->plan, request);
    EXPECT_EQ(r.ok(), expect_ok) << r.error;
    return r.ok() ? r.output : r.error;
  }

  static std::string request(const std::string& action, const std::string& target, const std::string& path,
                             int desired) {
    return R"({"action":")" + action + R"(","dha":{"namespace":"t","name":"db-dha"},"target":)" + target +
           R"(,"replicasPath":")" + path + R"(","currentReplicas":2,"desiredReplicas":)" + std::to_string(desired) +
           "}";
  }

  plugin_host::PluginRegistry registry;
  std::unique_ptr<plugin_host::PluginInstance> merge;
  std::unique_ptr<plugin_host::PluginInstance> scale;
};

const char* kUnmarked = R"({"metadata":{"name":"db"},"spec":{"replicas":2}})";
const char* kOurs = R"({"metadata":{"name":"db","annotations":{"autoscaling.cozystack.io/managed-by":"db-dha"}}})";
const char* kTheirs = R"({"metadata":{"name":"db","annotations":{"autoscaling.cozystack.io/managed-by":"other"}}})";

TEST_F(BuiltinActuators, BothAreListedWithTheActuatorCapability) {
  for (const char* id : {"builtin.merge-patch", "builtin.scale"}) {
    const auto* info = registry.find(id);
    ASSERT_NE(info, nullptr) << id;
    EXPECT_TRUE(info->has_capability("dha.actuator/1"));
    EXPECT_EQ(info->origin, "builtin:actuators");
  }
}

TEST_F(BuiltinActuators, MergePatchSetsReplicasAndTheMarkerInOnePatch) {
  EXPECT_EQ(plan(*merge, request("scale", kUnmarked, "spec.replicas", 3)),
            R"({"requests":[{"subresource":"","patchType":"merge","body":{"metadata":{"annotations":)"
            R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"3"}},)"
            R"("spec":{"replicas":3}}}]})");
}

TEST_F(BuiltinActuators, MergePatchFollowsTheReplicasPath) {
  EXPECT_EQ(plan(*merge, request("scale", kUnmarked, "spec.instances", 4)),
            R"({"requests":[{"subresource":"","patchType":"merge","body":{"metadata":{"annotations":)"
            R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"4"}},)"
            R"("spec":{"instances":4}}}]})");
  EXPECT_EQ(plan(*merge, request("scale", kUnmarked, "spec.values.replicas", 5)),
            R"({"requests":[{"subresource":"","patchType":"merge","body":{"metadata":{"annotations":)"
            R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"5"}},)"
            R"("spec":{"values":{"replicas":5}}}}]})");
}

TEST_F(BuiltinActuators, MergePatchRefusesPathsOutsideSpecAndNegativeCounts) {
  for (const char* path : {"metadata.name", "status.replicas", "spec..replicas", ".spec", ""}) {
    SCOPED_TRACE(path);
    EXPECT_NE(plan(*merge, request("scale", kUnmarked, path, 3), false).find("replicasPath"), std::string::npos);
  }
  EXPECT_NE(plan(*merge, request("scale", kUnmarked, "spec.replicas", -1), false).find("desiredReplicas"),
            std::string::npos);
}

TEST_F(BuiltinActuators, ReleaseClearsOnlyOurOwnMarker) {
  EXPECT_EQ(plan(*merge, request("release", kOurs, "spec.replicas", 0)),
            R"({"requests":[{"subresource":"","patchType":"merge","body":{"metadata":{"annotations":)"
            R"({"autoscaling.cozystack.io/managed-by":null,"autoscaling.cozystack.io/applied-replicas":null}}}}]})");
  EXPECT_EQ(plan(*merge, request("release", kTheirs, "spec.replicas", 0)), R"({"requests":[]})");
  EXPECT_EQ(plan(*merge, request("release", kUnmarked, "spec.replicas", 0)), R"({"requests":[]})");
  EXPECT_EQ(plan(*scale, request("release", kOurs, "spec.instances", 0)),
            R"({"requests":[{"subresource":"","patchType":"merge","body":{"metadata":{"annotations":)"
            R"({"autoscaling.cozystack.io/managed-by":null,"autoscaling.cozystack.io/applied-replicas":null}}}}]})");
}

TEST_F(BuiltinActuators, ScaleAnnouncesTheCountOnTheObjectThenPatchesTheSubresource) {
  const std::string expected =
      R"({"requests":[{"subresource":"","patchType":"merge","body":{"metadata":{"annotations":)"
      R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"3"}}}},)"
      R"({"subresource":"scale","patchType":"merge","body":{"spec":{"replicas":3}}}]})";
  EXPECT_EQ(plan(*scale, request("scale", kUnmarked, "spec.instances", 3)), expected);
  EXPECT_EQ(plan(*scale, request("scale", kOurs, "spec.instances", 3)), expected);
}

TEST(BuiltinComponents, WebhookAndStatusWriterShowInTheListing) {
  plugin_host::PluginRegistry registry;
  registry.load_builtin(op::builtin_components_entry(), "components");
  ASSERT_NE(registry.find("builtin.admission-webhook"), nullptr);
  ASSERT_NE(registry.find("builtin.status-writer"), nullptr);
  EXPECT_TRUE(registry.find("builtin.status-writer")->has_capability("dha.host.status-writer/1"));
  auto instance = registry.create("builtin.admission-webhook");
  EXPECT_EQ(instance->actuator(), nullptr);
  EXPECT_EQ(instance->engine(), nullptr);
}

}  // namespace
}  // namespace dha::actuators
