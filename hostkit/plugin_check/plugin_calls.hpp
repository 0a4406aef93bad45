#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "checks.hpp"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"
#include "plugin_host/plugin_instance.hpp"
#include "plugin_host/plugin_registry.hpp"

// How the checks (and --print-samples) load the plugin under test and call it: every failure
// becomes a Failure whose message names the plugin, the call and the status.
namespace dha::plugin_check {

// Thrown inside a check to fail it with a message.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Failure(fmt::format(format, std::forward<Args>(args)...));
}

// The file's plugins, each created with the given configuration.
struct Loaded {
  plugin_host::PluginRegistry registry;
  std::vector<std::unique_ptr<plugin_host::PluginInstance>> instances;
};
std::unique_ptr<Loaded> load_all(const Options& options);

// Every call goes through here: an exception escaping the plugin is a failure wherever it happens.
plugin_host::CallResult checked(const plugin_host::PluginInstance& p, const plugin_host::CallResult& result,
                                std::string_view what);

sdk::json::Document parse_or_fail(const plugin_host::PluginInstance& p, const std::string& text, std::string_view what);

// The engine's answers, parsed; anything but a well-formed answer fails.
std::vector<sdk::TargetKind> targets_of(const plugin_host::PluginInstance& p);
sdk::Topology topology_of(const plugin_host::PluginInstance& p, const std::string& target);

}  // namespace dha::plugin_check
