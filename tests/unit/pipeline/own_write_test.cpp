#include "pipeline/own_write.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dha/actuators/builtin_actuators.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace dha::pipeline {
namespace {

// The real built-in actuators, through the C ABI like any third-party actuator.
class OwnWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    registry.load_builtin(actuators::builtin_actuators_entry(), "actuators");
    merge = registry.create("builtin.merge-patch");
    scale = registry.create("builtin.scale");
  }

  static sdk::ActuatorPlan plan(const plugin_host::PluginInstance& actuator, const rapidjson::Value& target,
                                const std::string& dha, std::int64_t count) {
    sdk::ActuatorRequest request;
    request.dha = {"t", dha};
    request.target = &target;
    request.current_replicas = count;
    request.desired_replicas = count;
    const auto r = actuator.call(actuator.actuator()->plan, request.to_json());
    EXPECT_TRUE(r.ok()) << r.error;
    return sdk::ActuatorPlan::from_json(sdk::json::parse(r.output, "plan"));
  }

  static bool shows(const plugin_host::PluginInstance& actuator, const rapidjson::Value& target, std::int64_t current) {
    return target_shows_our_write(plan(actuator, target, "db-dha", current),
                                  plan(actuator, target, "db-dha-another", current),
                                  plan(actuator, target, "db-dha", current + 1), target, "spec.replicas");
  }

  plugin_host::PluginRegistry registry;
  std::unique_ptr<plugin_host::PluginInstance> merge;
  std::unique_ptr<plugin_host::PluginInstance> scale;
};

// The operator died between a patch and the status write recording it: the target shows what
// our actuator writes for its current count, so the count is ours, not a competing writer's
// (the soak's finding: such a DHA otherwise stayed in OwnershipConflict with itself for good).
TEST_F(OwnWrite, AdoptionTableForBothBuiltinActuators) {
  struct Case {
    const char* name;
    const char* annotations;
    std::optional<std::int32_t> last_applied;
    std::int32_t current;
    bool adopted;
  };
  const std::vector<Case> cases{
      {"our marker and count",
       R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"4"})", 3, 4,
       true},
      {"count differs: a competing writer",
       R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"4"})", 3, 5,
       false},
      {"another DHA's marker",
       R"({"autoscaling.cozystack.io/managed-by":"other","autoscaling.cozystack.io/applied-replicas":"4"})", 3, 4,
       false},
      {"no count announced", R"({"autoscaling.cozystack.io/managed-by":"db-dha"})", 3, 4, false},
      {"count not a string",
       R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":4})", 3, 4,
       false},
      {"count with junk",
       R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"4 "})", 3, 4,
       false},
      {"status already agrees",
       R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"4"})", 4, 4,
       false},
      {"nothing applied yet",
       R"({"autoscaling.cozystack.io/managed-by":"db-dha","autoscaling.cozystack.io/applied-replicas":"4"})",
       std::nullopt, 4, false},
  };
  for (const auto* actuator : {merge.get(), scale.get()}) {
    for (const auto& c : cases) {
      SCOPED_TRACE(actuator->info().id + ": " + c.name);
      rapidjson::Document target;
      target.Parse((std::string(R"({"metadata":{"name":"db","annotations":)") + c.annotations +
                    R"(},"spec":{"replicas":)" + std::to_string(c.current) + "}}")
                       .c_str());
      ASSERT_FALSE(target.HasParseError());
      model::DecisionState state;
      state.last_applied_replicas = c.last_applied;
      EXPECT_EQ(adopt_if_ours(state, c.current, 500, shows(*actuator, target, c.current)), c.adopted);
      if (c.adopted) {
        EXPECT_EQ(state.last_applied_replicas, c.current);
        EXPECT_EQ(state.in_flight_since, 500) << "in flight, so convergence is still checked";
        EXPECT_EQ(state.last_scale_time, 500);
      } else {
        EXPECT_EQ(state.last_applied_replicas, c.last_applied);
        EXPECT_FALSE(state.in_flight_since.has_value());
      }
    }
  }
}

// The merge-patch actuator also writes the count into spec.replicas: a target whose replicas
// field says otherwise was not written by it.
TEST_F(OwnWrite, MergePatchWriteIncludesTheReplicasField) {
  rapidjson::Document target;
  target.Parse(R"({"metadata":{"annotations":{"autoscaling.cozystack.io/managed-by":"db-dha",
      "autoscaling.cozystack.io/applied-replicas":"4"}},"spec":{"replicas":5}})");
  EXPECT_FALSE(shows(*merge, target, 4));
}

sdk::ActuatorPlan plan_of(const char* json) { return sdk::ActuatorPlan::from_json(sdk::json::parse(json, "plan")); }

// A third-party actuator that writes no identity (a JSON patch of the count alone) can never
// claim a count: any writer who set the same count would look like it.
TEST(OwnWriteThirdParty, APlanWithoutIdentityNeverShowsOurWrite) {
  rapidjson::Document target;
  target.Parse(R"({"spec":{"replicas":4}})");
  const auto count_only = [](int n) {
    const std::string v = std::to_string(n);
    return plan_of((R"({"requests":[{"subresource":"","patchType":"json","body":[)"
                    R"({"op":"test","path":"/spec/replicas","value":)" +
                    v + R"(},{"op":"replace","path":"/spec/replicas","value":)" + v + "}]}]}")
                       .c_str());
  };
  EXPECT_TRUE(plan_in_effect(count_only(4), target));
  EXPECT_FALSE(target_shows_our_write(count_only(4), count_only(4), count_only(5), target, "spec.replicas"));
}

// A marker without a count of its own proves who, not how many.
TEST(OwnWriteThirdParty, AMarkerWithoutACountIsNotEnough) {
  rapidjson::Document target;
  target.Parse(R"({"metadata":{"labels":{"owner":"db-dha"}},"spec":{"replicas":4}})");
  const auto marker_and_count = [](const char* owner, int n) {
    return plan_of((std::string(R"({"requests":[{"subresource":"","patchType":"merge",)"
                                R"("body":{"metadata":{"labels":{"owner":")") +
                    owner + R"("}},"spec":{"replicas":)" + std::to_string(n) + "}}}]}")
                       .c_str());
  };
  EXPECT_FALSE(target_shows_our_write(marker_and_count("db-dha", 4), marker_and_count("x", 4),
                                      marker_and_count("db-dha", 5), target, "spec.replicas"));
}

// A third-party actuator that records who and how many gets the same adoption as ours.
TEST(OwnWriteThirdParty, AnActuatorRecordingWhoAndHowManyIsRecognised) {
  rapidjson::Document target;
  target.Parse(R"({"metadata":{"labels":{"owner":"db-dha","count":"4"}},"spec":{"size":4}})");
  const auto plan = [](const char* owner, int n) {
    const std::string v = std::to_string(n);
    return plan_of((std::string(R"({"requests":[{"subresource":"","patchType":"json","body":[)") +
                    R"({"op":"add","path":"/metadata/labels/owner","value":")" + owner + R"("},)" +
                    R"({"op":"add","path":"/metadata/labels/count","value":")" + v + R"("},)" +
                    R"({"op":"replace","path":"/spec/size","value":)" + v + "}]}]}")
                       .c_str());
  };
  EXPECT_TRUE(target_shows_our_write(plan("db-dha", 4), plan("x", 4), plan("db-dha", 5), target, "spec.size"));
  EXPECT_FALSE(target_shows_our_write(plan("db-dha", 5), plan("x", 5), plan("db-dha", 6), target, "spec.size"));
}

}  // namespace
}  // namespace dha::pipeline
