#pragma once

#include <cstdint>
#include <string>
#include <vector>

// What the engine adapter says about a target object, for `simulate --target`: the simulated
// database then has the quorum floor and primaries the operator would use.
namespace dha::cli {

struct TargetShape {
  std::int32_t quorum_floor = 1;
  std::int32_t primary_count = 1;
};

// Loads the named plugins from `dirs` (as `run` does), finds the adapter for the object's
// apiVersion group and kind and asks it for the topology. Throws Exit(2) with the reason.
TargetShape target_shape(const std::string& target_file, const std::vector<std::string>& plugin_dirs,
                         const std::vector<std::string>& plugins);

}  // namespace dha::cli
