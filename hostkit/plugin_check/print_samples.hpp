#pragma once

#include <string>

#include "checks.hpp"

namespace dha::plugin_check {

// `--print-samples`: every input the checks send each plugin in the file, as one JSON document
// ({"file", "namespace", "plugins": [{"id", "capabilities", "topology": [...], "queries": [...],
// "health": [...], "evaluate": [...], "plan": [...]}], "malformedInputs": [...]}). The target
// objects depend on the kinds the engine declares, and the health objects on its topology, so the
// plugin is loaded and asked; throws (Failure, PluginError) when it cannot answer.
std::string samples_json(const Options& options);

}  // namespace dha::plugin_check
