#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/plugin_set.hpp"

// How the commands that explain the operator (`metrics`, `simulate --from-metrics` and
// `--target`, `kubectl dha backtest`) load plugins: with the operator's own flags and file
// (--plugin-dir, --plugins, --plugin-config) through PluginSet::load, and the engine for a kind
// by engine_for, so a tool loads and configures what the operator loads and picks the adapter
// it picks.
namespace dha::cli {

struct ToolPlugins {
  std::vector<std::string> plugin_dirs;  // --plugin-dir; the installation's directory is searched after them
  // --plugins; empty: every plugin in the directories (and one folder down, as a build tree
  // keeps them), the first file of a name winning.
  std::vector<std::string> plugins;
  std::string plugin_config;                  // the operator's --plugin-config file ("" = none)
  std::string metrics_url;                    // replaces the metric source's url (and urlTemplate); "" = as configured
  std::string metrics_plugin = "metrics-vm";  // the metric source the URL is for
  // For a range history: metrics-vm gets this timeout and a response cap a week of series fits in.
  double history_timeout_seconds = 0;  // 0: not a history read
  bool needs_metric_source = true;     // false: only an adapter's topology is asked for
};

// Loads the plugin set; throws Exit(2) naming the problem (a plugin not found with each
// directory searched, a bad configuration, no metric source `metrics_plugin`).
std::unique_ptr<op::PluginSet> load_tool_plugins(const ToolPlugins& p);

// The adapter for (api_group, kind) as the operator picks it; api_group "" is the default group.
// Throws Exit(2) "... (NoAdapter) ..." listing what the loaded adapters handle.
const op::EngineBinding& tool_engine(const op::PluginSet& set, const std::string& api_group, const std::string& kind,
                                     const ToolPlugins& p);

// The directories the tools search, as `load_tool_plugins` does.
std::vector<std::string> tool_plugin_dirs(const ToolPlugins& p);

}  // namespace dha::cli
