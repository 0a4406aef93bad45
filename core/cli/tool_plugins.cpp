#include "tool_plugins.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "dha/kube/json.hpp"
#include "dha/model/spec.hpp"
#include "exit.hpp"
#include "install_paths.hpp"
#include "plugin_host/plugin_dirs.hpp"

namespace dha::cli {
namespace {

// The operator's configuration with the tool's changes to the metric source's section: another
// URL, and for a history read a longer timeout and a larger response cap than instant reads need
// (other sources get only the URL: the host refuses keys a plugin does not declare).
std::string configuration(const ToolPlugins& p) {
  std::string text;
  try {
    text = op::read_plugin_config_text(p.plugin_config);
  } catch (const std::exception& e) {
    throw Exit(kExitBadInput, e.what());
  }
  if (p.metrics_url.empty() && p.history_timeout_seconds <= 0) return text;
  rapidjson::Document config(rapidjson::kObjectType);
  if (!text.empty()) config.Parse(text.c_str(), text.size());
  if (config.HasParseError() || !config.IsObject()) return text;  // PluginSet::load says what is wrong with it
  auto& a = config.GetAllocator();
  const rapidjson::Value id(p.metrics_plugin.c_str(), a);
  if (!config.HasMember(id) || !config[id].IsObject()) {
    config.RemoveMember(id);
    config.AddMember(rapidjson::Value(p.metrics_plugin.c_str(), a), rapidjson::Value(rapidjson::kObjectType), a);
  }
  auto& section = config[id];
  const auto set = [&](const char* key, rapidjson::Value value) {
    section.RemoveMember(key);
    section.AddMember(rapidjson::Value(key, a), value, a);
  };
  if (!p.metrics_url.empty()) {
    section.RemoveMember("urlTemplate");
    set("url", rapidjson::Value(p.metrics_url.c_str(), a));
  }
  if (p.history_timeout_seconds > 0 && p.metrics_plugin == "metrics-vm") {
    set("timeoutSeconds", rapidjson::Value(p.history_timeout_seconds));
    // A week of one series at one-minute steps is about 250 KB; leave room for a few series.
    set("maxResponseBytes", rapidjson::Value(static_cast<std::int64_t>(64) << 20));
  }
  return kube::to_json(config);
}

// Without --plugins: every plugin file in the directories, the first of each name.
void name_every_plugin(const std::vector<std::string>& search, std::vector<std::string>& dirs,
                       std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (const auto& dir : search)
    for (const auto& file : plugin_host::plugin_files(dir, true)) {
      if (!seen.insert(file.stem().string()).second) continue;
      names.push_back(file.stem().string());
      const std::string folder = file.parent_path().string();
      if (std::find(dirs.begin(), dirs.end(), folder) == dirs.end()) dirs.push_back(folder);
    }
}

}  // namespace

std::vector<std::string> tool_plugin_dirs(const ToolPlugins& p) { return plugin_search_dirs(p.plugin_dirs); }

std::unique_ptr<op::PluginSet> load_tool_plugins(const ToolPlugins& p) {
  for (const auto& dir : p.plugin_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      throw Exit(kExitBadInput, "plugin directory " + dir + " does not exist");
  }
  const std::vector<std::string> search = tool_plugin_dirs(p);
  op::PluginSetOptions options;
  options.names = op::split_plugin_names(p.plugins);
  if (options.names.empty()) {
    name_every_plugin(search, options.dirs, options.names);
  } else {
    options.dirs = search;
  }
  options.config_json = configuration(p);
  options.config_origin =
      p.plugin_config.empty() ? "the metric source's configuration" : "--plugin-config " + p.plugin_config;
  std::unique_ptr<op::PluginSet> set;
  try {
    set = op::PluginSet::load(options);
  } catch (const std::exception& e) {
    throw Exit(kExitBadInput, std::string("plugins: ") + e.what());
  }
  const auto* source = set->metric_source();
  if (!p.needs_metric_source) return set;
  if (source == nullptr || source->info().id != p.metrics_plugin)
    throw Exit(kExitBadInput,
               "metrics plugin \"" + p.metrics_plugin +
                   "\" is not loaded; plugin directories searched: " + plugin_host::describe_plugin_dirs(search, true));
  return set;
}

const op::EngineBinding& tool_engine(const op::PluginSet& set, const std::string& api_group, const std::string& kind,
                                     const ToolPlugins& p) {
  if (const op::EngineBinding* engine = set.engine_for(api_group, kind)) return *engine;
  throw Exit(kExitBadInput,
             "no loaded engine adapter handles kind " + kind + " in group " +
                 (api_group.empty() ? std::string(model::kDefaultApiGroup) : api_group) +
                 " (NoAdapter); loaded adapters handle: " + set.handled_kinds() +
                 "; plugin directories searched: " + plugin_host::describe_plugin_dirs(tool_plugin_dirs(p), true));
}

}  // namespace dha::cli
