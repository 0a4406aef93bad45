#pragma once

#include <functional>
#include <string>
#include <variant>

#include "dha/kube/json.hpp"
#include "dha/kube/resource.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/engine_types.hpp"
#include "host/plugin_set.hpp"
#include "pipeline/stop.hpp"

// Target resolution, the same for a reconcile and for a finalizer: the engine adapter for the
// spec's targetRef, the target object, and the adapter's reading of its topology. Each step
// that fails says why as a Stop.
namespace dha::pipeline {

struct Target {
  const op::EngineBinding* engine = nullptr;
  kube::ResourceRef ref;
  kube::ObjectPtr object;  // set by read_target
};

// How the target is read: the informer cache in a reconcile, a direct GET in a finalizer.
// nullptr when it does not exist; API errors propagate.
using ObjectReader = std::function<kube::ObjectPtr(const kube::ResourceRef&)>;

// The engine adapter and the target's reference (NoAdapter when no loaded adapter handles it).
std::variant<Target, Stop> locate_target(const op::PluginSet& plugins, const model::TargetRef& target_ref,
                                         const std::string& ns);
// Reads the object into `target` (NotScalable when it is missing or unreadable).
std::optional<Stop> read_target(Target& target, const ObjectReader& read);
// The engine adapter's topology of the object (NotScalable when the adapter cannot tell).
std::variant<sdk::Topology, Stop> read_topology(const Target& target);

}  // namespace dha::pipeline
