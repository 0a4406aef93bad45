#pragma once

// The topology every cozystack Application shares: a managed database of group
// apps.cozystack.io whose replica count is `spec.replicas`, released by Helm as
// "<prefix>-<name>", watched by a WorkloadMonitor of that release name, sized by
// `spec.resources` or `spec.resourcesPreset` (the chart's default preset when neither is set).
// One primary and a quorum floor of one, unless the adapter knows better.
//
// An adapter calls this first, then changes what its engine does differently (the health object
// name, the quorum floor) and applies its own "not scalable" reasons — later reasons replace the
// "no replicas value" one set here, so apply them from the weakest to the strongest.

#include <string>
#include <string_view>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/error.hpp"
#include "dha/sdk/object_view.hpp"
#include "dha/sdk/values.hpp"

namespace dha::sdk {

struct CozystackApplication {
  std::string_view plugin_id;       // prefixes error messages, e.g. "redis"
  std::string_view kind;            // e.g. "Redis"
  std::string_view release_prefix;  // e.g. "redis" for release "redis-<name>"
  std::string_view default_preset;  // the chart's resourcesPreset default
};

inline constexpr const char* kNoReplicasValueReason = "target has no replicas value";

// Throws Error(DHA_INVALID_ARGUMENT) for an object without a name or of another kind.
inline Topology cozystack_application_topology(const ObjectView& target, const CozystackApplication& app) {
  const std::string name(target.name());
  const std::string id(app.plugin_id);
  if (name.empty()) throw Error(DHA_INVALID_ARGUMENT, id + ": the target has no metadata.name");
  if (target.kind() != app.kind || !target.api_version().starts_with("apps.cozystack.io/")) {
    throw Error(DHA_INVALID_ARGUMENT, id + ": cannot read a target of kind " + std::string(target.kind()) + " (" +
                                          std::string(target.api_version()) + ")");
  }
  const json::Value& spec = target.spec();
  Topology t;
  t.primary_count = 1;
  t.quorum_floor = 1;
  t.replicas_path = "spec.replicas";
  t.current_replicas = values::read_replicas(target.json(), t.replicas_path);
  t.release_name = std::string(app.release_prefix) + "-" + name;
  t.health = HealthSource::workload_monitor(t.release_name);
  t.resources = values::read_resources(spec);
  t.resources_preset = std::string(values::read_string(spec, "resourcesPreset", ""));
  if (t.resources_preset.empty()) t.resources_preset = std::string(app.default_preset);
  if (!t.current_replicas) {
    t.scalable = false;
    t.reason = kNoReplicasValueReason;
  }
  return t;
}

}  // namespace dha::sdk
