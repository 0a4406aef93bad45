#include "plugin_config.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "dha/ext/metrics.h"
#include "dha/sdk/json.hpp"

namespace dha::plugin_check {

namespace {

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(what + ": cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void require_object(const std::string& text, const std::string& what) {
  sdk::json::Document d;
  if (d.Parse(text.c_str()).HasParseError() || !d.IsObject()) throw std::runtime_error(what + ": not a JSON object");
}

bool declares_key(const plugin_host::PluginInfo& info, const std::string& key) {
  sdk::json::Document schema;
  if (info.config_schema.empty() || schema.Parse(info.config_schema.c_str()).HasParseError() || !schema.IsObject())
    return false;
  const auto* keys = sdk::json::find(schema, "keys");
  if (keys == nullptr || !keys->IsArray()) return false;
  for (const auto& k : keys->GetArray())
    if (const auto* name = sdk::json::find(k, "name"); name != nullptr && name->IsString() && name->GetString() == key)
      return true;
  return false;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

}  // namespace

void read_configs(const std::vector<std::string>& config_args, const std::string& plugin_config_file,
                  Options& options) {
  if (!plugin_config_file.empty()) {
    const std::string what = "--plugin-config " + plugin_config_file;
    sdk::json::Document d;
    const std::string text = read_file(plugin_config_file, what);
    if (d.Parse(text.c_str()).HasParseError() || !d.IsObject())
      throw std::runtime_error(what + ": expected {\"<plugin>\": {...}}");
    for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it) {
      if (!it->value.IsObject())
        throw std::runtime_error(what + ": the configuration of \"" + std::string(it->name.GetString()) +
                                 "\" must be an object");
      options.config_by_id[it->name.GetString()] = sdk::json::stringify(it->value);
    }
  }
  for (const auto& arg : config_args) {
    const auto first = arg.find_first_not_of(" \t\n");
    if (first != std::string::npos && arg[first] == '{') {  // the old form: one JSON for every plugin
      options.config = arg;
      continue;
    }
    const auto eq = arg.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
      throw std::runtime_error("--config \"" + arg +
                               "\": expected a JSON object (every plugin) or NAME=FILE (plugin NAME)");
    const std::string name = arg.substr(0, eq);
    const std::string what = "--config " + arg;
    const std::string text = read_file(arg.substr(eq + 1), what);
    require_object(text, what);
    options.config_by_id[name] = text;
  }
}

std::string config_for(const Options& options, const plugin_host::PluginInfo& info, const std::string& metrics_url) {
  std::string text;
  if (auto own = options.config_by_id.find(info.id); own != options.config_by_id.end()) {
    text = own->second;
  } else if (!options.config.empty()) {
    text = options.config;
  } else if (info.has_capability(DHA_EXT_METRICS) && declares_key(info, "url")) {
    text = R"({"url": "${metricsUrl}"})";
  }
  // Without a backend a URL is still needed to start: the discard port on loopback, where no
  // request of the checks ever goes (the metric checks refuse to run without a backend).
  return replace_all(text, "${metricsUrl}", metrics_url.empty() ? std::string(kNoMetricsUrl) : metrics_url);
}

}  // namespace dha::plugin_check
