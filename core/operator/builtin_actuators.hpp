#pragma once

#include "dha/abi.h"
#include "dha/sdk/host.hpp"
#include "dha/sdk/plugin.hpp"

// The two built-in actuators (dha.actuator/1), written with the SDK like any third-party
// plugin and registered through PluginRegistry::load_builtin:
//   builtin.merge-patch  JSON merge patch of spec.<replicasPath> plus the managed-by marker
//                        (BEHAVIOUR §3.9); release removes the marker if it names this DHA.
//   builtin.scale        merge patch of the target's /scale subresource (Part A 15), plus the
//                        marker on the object itself so `kubectl get -o yaml` shows who scales it.
namespace dha::op {

inline constexpr const char* kManagedByAnnotation = "autoscaling.cozystack.io/managed-by";

class MergePatchActuator final : public sdk::Actuator {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "builtin.merge-patch",
      .name = "Merge-patch actuator",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description = "JSON merge patch of spec.<replicasPath> with the managed-by marker annotation",
      .config_schema = nullptr};
  MergePatchActuator(const sdk::Host&, const sdk::json::Value&) {}
  sdk::ActuatorPlan plan(const sdk::ActuatorRequest& request) const override;
};

class ScaleSubresourceActuator final : public sdk::Actuator {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "builtin.scale",
      .name = "Scale-subresource actuator",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description = "Patch of the target's /scale subresource (spec.replicas), marker on the object",
      .config_schema = nullptr};
  ScaleSubresourceActuator(const sdk::Host&, const sdk::json::Value&) {}
  sdk::ActuatorPlan plan(const sdk::ActuatorRequest& request) const override;
};

// The statically linked entry table holding both actuators.
const dha_plugin_entry* builtin_actuators_entry(void);

}  // namespace dha::op
