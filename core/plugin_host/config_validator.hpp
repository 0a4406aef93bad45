#pragma once

#include <string>

namespace dha::plugin_host {

// Checks a plugin configuration (JSON object text, "" meaning {}) against the keys the plugin
// declared in its descriptor's config_schema, and returns the configuration with defaults
// filled in. Throws PluginError naming the plugin and the key for unknown keys, wrong types and
// missing required keys, so a typo in a Helm value fails at start-up rather than being ignored.
std::string validate_plugin_config(const std::string& plugin_id, const std::string& config_schema,
                                   const std::string& config_json);

}  // namespace dha::plugin_host
