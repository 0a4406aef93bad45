#pragma once

#include <string>
#include <vector>

#include "checks.hpp"
#include "plugin_host/plugin_info.hpp"

// Which configuration each plugin of the file is created with, as the operator's --plugin-config
// gives each plugin its own section.
namespace dha::plugin_check {

inline constexpr const char* kNoMetricsUrl = "http://127.0.0.1:9";

// Reads the --config values into `options`: JSON text (every plugin of the file, as before) or
// NAME=FILE (plugin NAME only); and a --plugin-config file {"<id>": {...}}. Throws
// std::runtime_error naming the value or the file that is wrong.
void read_configs(const std::vector<std::string>& config_args, const std::string& plugin_config_file, Options& options);

// The configuration text `info` is created with: its own, else the file-wide one, else — for a
// metric source declaring a "url" key — {"url": "${metricsUrl}"}. ${metricsUrl} becomes `metrics_url`.
std::string config_for(const Options& options, const plugin_host::PluginInfo& info, const std::string& metrics_url);

}  // namespace dha::plugin_check
