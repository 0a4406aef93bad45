#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dha/gates/gate_chain.hpp"
#include "dha/sdk/engine_types.hpp"
#include "plugin_host/plugin_instance.hpp"
#include "plugin_host/plugin_registry.hpp"

// Everything the operator loaded at start: the plugins named by --plugins (from the
// --plugin-dir directories, first match wins), the built-ins, one instance of each configured
// from --plugin-config, and the lookups the reconciler needs. Read-only after load().
namespace dha::op {

struct PluginSetOptions {
  std::vector<std::string> dirs;                       // --plugin-dir, searched in order
  std::vector<std::string> names;                      // --plugins; gate plugins run in this order
  std::string config_json;                             // {"<plugin id>": {...}, ...}; "" = none
  std::string config_origin = "plugin configuration";  // where config_json came from, for errors
};

// The text of a --plugin-config file ("" for no path), for PluginSetOptions::config_json; throws
// std::runtime_error naming the file when it cannot be read.
std::string read_plugin_config_text(const std::string& path);

// An engine adapter and the target kind it handles.
struct EngineBinding {
  const plugin_host::PluginInstance* instance = nullptr;
  sdk::TargetKind target;
};

class PluginSet {
 public:
  // Loads and creates everything; throws std::runtime_error (PluginError included) naming the
  // plugin and the problem: a missing file, a bad configuration, two adapters for one kind,
  // two metric sources, an engine naming an actuator nobody provides.
  static std::unique_ptr<PluginSet> load(const PluginSetOptions& options);

  // The adapter for (apiGroup, kind); nullptr when no loaded adapter handles it.
  const EngineBinding* engine_for(const std::string& api_group, const std::string& kind) const;
  // "apps.cozystack.io/Postgres, postgresql.cnpg.io/Cluster" for the NoAdapter message.
  std::string handled_kinds() const;
  const std::vector<EngineBinding>& engines() const { return engines_; }

  const plugin_host::PluginInstance* metric_source() const { return metric_source_; }
  const plugin_host::PluginInstance* actuator(const std::string& id) const;
  // The built-in gates followed by the gate plugins in --plugins order.
  const gates::GateChain& chain() const { return chain_; }
  // Whether any gate plugin is loaded: one may read observation fields no built-in gate needs.
  bool has_gate_plugins() const { return gate_plugins_ > 0; }

  // Every plugin known (built-ins included), for the start-up listing.
  const std::vector<plugin_host::PluginInfo>& listing() const { return registry_.plugins(); }

 private:
  PluginSet() = default;

  plugin_host::PluginRegistry registry_;
  std::map<std::string, std::unique_ptr<plugin_host::PluginInstance>> instances_;
  std::vector<EngineBinding> engines_;
  const plugin_host::PluginInstance* metric_source_ = nullptr;
  gates::GateChain chain_;
  int gate_plugins_ = 0;
};

// The --plugin-config file: {"<plugin id>": {...}} → each plugin's configuration text ("" = no
// file, no configurations). Throws std::runtime_error naming the file and the problem.
std::map<std::string, std::string> read_plugin_config_file(const std::string& path);

// Splits "a,b, c" into {"a","b","c"} (empty items dropped): the --plugins syntax.
std::vector<std::string> split_plugin_names(const std::vector<std::string>& values);

}  // namespace dha::op
