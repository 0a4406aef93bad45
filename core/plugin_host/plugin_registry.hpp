#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dha/abi.h"
#include "plugin_host/plugin_info.hpp"
#include "plugin_host/plugin_instance.hpp"

namespace dha::plugin_host {

class PluginLibrary;

// Every plugin the host knows, from files and from built-in entry tables alike. Filled at
// start-up from the main thread; read-only (and so safe to share) afterwards.
class PluginRegistry {
 public:
  PluginRegistry();
  ~PluginRegistry();

  // Loads one plugin file. Throws PluginError (file, both ABI versions, what is wrong); a file
  // that fails leaves the registry unchanged.
  void load_file(const std::string& path);

  // Registers a statically linked entry table under "builtin:<name>".
  void load_builtin(const dha_plugin_entry* entry, const std::string& name);

  // Loads <name>.so for every name, searching `dirs` in order (first match wins). A name found
  // nowhere throws PluginError listing each directory and the .so files it holds.
  void load_named(const std::vector<std::string>& dirs, const std::vector<std::string>& names);

  const std::vector<PluginInfo>& plugins() const { return plugins_; }
  const PluginInfo* find(const std::string& id) const;

  // Validates `config_json` against the plugin's declared keys (defaults filled in), then asks
  // the plugin to create an instance. Throws PluginError with the plugin's own message.
  std::unique_ptr<PluginInstance> create(const std::string& id, const std::string& config_json = "") const;
  // The same with a caller-supplied dha_host (the SDK test kit's FakeHost captures the log lines);
  // the instance keeps `host` alive until it is destroyed.
  std::unique_ptr<PluginInstance> create(const std::string& id, const std::string& config_json,
                                         std::shared_ptr<const dha_host> host) const;

 private:
  void add(std::shared_ptr<PluginLibrary> library);

  std::vector<std::shared_ptr<PluginLibrary>> libraries_;
  std::vector<PluginInfo> plugins_;
  std::map<std::string, std::shared_ptr<PluginLibrary>> by_id_;
};

}  // namespace dha::plugin_host
