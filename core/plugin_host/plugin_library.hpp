#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dha/abi.h"
#include "plugin_host/plugin_info.hpp"

namespace dha::plugin_host {

// One validated source of plugins: a shared object opened with Boost.DLL, or a statically
// linked built-in entry table. Instances keep a shared_ptr to their library, so the code they
// run cannot be unloaded under them.
class PluginLibrary {
 public:
  // Opens `path`, finds dha_plugin_entry_v1 and validates the entry table and every descriptor.
  // Throws PluginError naming the file, both ABI versions and what is wrong.
  static std::shared_ptr<PluginLibrary> open(const std::string& path);

  // Wraps an entry table linked into the host. Validated exactly like a loaded one.
  static std::shared_ptr<PluginLibrary> builtin(const dha_plugin_entry* entry, const std::string& name);

  ~PluginLibrary();
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& origin() const { return origin_; }
  const dha_plugin_entry& entry() const { return *entry_; }
  const std::vector<PluginInfo>& plugins() const { return plugins_; }

 private:
  struct Handle;
  PluginLibrary(std::unique_ptr<Handle> handle, const dha_plugin_entry* entry, std::string origin);
  void validate();

  std::unique_ptr<Handle> handle_;  // null for built-ins
  const dha_plugin_entry* entry_;
  std::string origin_;
  std::vector<PluginInfo> plugins_;
};

}  // namespace dha::plugin_host
