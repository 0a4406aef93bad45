#pragma once

#include <string>

#include "dha/abi.h"
#include "dha/sdk/host.hpp"
#include "dha/sdk/plugin.hpp"

// The two built-in actuators (dha.actuator/1), written with the SDK like any third-party
// plugin and registered through PluginRegistry::load_builtin:
//   builtin.merge-patch  JSON merge patch of spec.<replicasPath> plus the managed-by marker and
//                        the applied count, in one request; release removes both if the marker
//                        names this DHA.
//   builtin.scale        the marker and the applied count on the object itself (so `kubectl get
//                        -o yaml` shows who scales it), then a merge patch of the target's /scale
//                        subresource.
namespace dha::actuators {

inline constexpr const char* kManagedByAnnotation = "autoscaling.cozystack.io/managed-by";
// The count of our last write, set with the marker in the same request (before the /scale
// patch for /scale targets). If the operator dies between a patch and the status write that
// records it, the next leader recognises the count as ours instead of as a competing writer's.
inline constexpr const char* kAppliedReplicasAnnotation = "autoscaling.cozystack.io/applied-replicas";

// The managed-by marker on a target (the DHA name that scales it), or "" when absent.
std::string managed_by(const sdk::json::Value& target);

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

}  // namespace dha::actuators
