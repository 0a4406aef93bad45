#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dha/sdk/engine_types.hpp"
#include "host/plugin_set.hpp"
#include "tool_plugins.hpp"

// What the engine adapter says about a target object, for `simulate --target`: the simulated
// database then has the quorum floor and primaries the operator would use.
namespace dha::cli {

struct TargetShape {
  std::int32_t quorum_floor = 1;
  std::int32_t primary_count = 1;
};

// A Kubernetes object from a YAML or JSON file, with an apiVersion and a kind. Throws Exit(2).
rapidjson::Document read_target_object(const std::string& target_file);

// The adapter's topology of `object` (`what` names it in errors). Throws Exit with the reason.
sdk::Topology topology_of(const op::EngineBinding& engine, const rapidjson::Value& object, const std::string& what);

// The floor and primaries the operator takes from a topology (a floor below 1 counts as 1).
TargetShape shape_of(const sdk::Topology& topology);

// Loads the plugins as the operator's flags say, finds the adapter for the object's apiVersion
// group and kind and asks it for the topology. Throws Exit(2) with the reason.
TargetShape target_shape(const std::string& target_file, const ToolPlugins& plugins);

}  // namespace dha::cli
