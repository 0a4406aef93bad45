#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dha::plugin_host {

// What the host knows about one plugin, copied out of its descriptor at load time so it stays
// valid independently of the library.
struct PluginInfo {
  std::string id;
  std::string name;
  std::string version;
  std::string vendor;
  std::string description;
  std::vector<std::string> capabilities;
  std::string config_schema;  // JSON text; "" when the plugin takes no configuration
  std::string origin;         // the file path, or "builtin:<name>"
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;

  bool has_capability(const std::string& id_with_revision) const;
};

}  // namespace dha::plugin_host
