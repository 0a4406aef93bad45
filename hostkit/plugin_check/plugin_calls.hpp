#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
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
// ${metricsUrl} in a configuration becomes `metrics_url` (default: options.metrics_url).
std::unique_ptr<Loaded> load_all(const Options& options);
std::unique_ptr<Loaded> load_all(const Options& options, const std::string& metrics_url);

// Every call goes through here: an exception escaping the plugin is a failure wherever it happens.
plugin_host::CallResult checked(const plugin_host::PluginInstance& p, const plugin_host::CallResult& result,
                                std::string_view what);

sdk::json::Document parse_or_fail(const plugin_host::PluginInstance& p, const std::string& text, std::string_view what);

// The engine's answers, parsed; anything but a well-formed answer fails.
std::vector<sdk::TargetKind> targets_of(const plugin_host::PluginInstance& p);
sdk::Topology topology_of(const plugin_host::PluginInstance& p, const std::string& target);

// Runs `body` for every instance offering `capability`; passes with how many were exercised.
template <class Body>
CheckOutcome for_each_instance(const Options& options, const char* capability, Body&& body) {
  auto loaded = load_all(options);
  int exercised = 0;
  std::string notes;
  for (const auto& p : loaded->instances) {
    if (!p->info().has_capability(capability)) continue;
    if constexpr (std::is_same_v<decltype(body(*p)), std::string>) {
      const std::string note = body(*p);
      if (!note.empty()) notes += (notes.empty() ? "" : "; ") + note;
    } else {
      body(*p);
    }
    ++exercised;
  }
  if (exercised == 0) return {true, fmt::format("no plugin offers {}", capability)};
  return {true, notes.empty() ? fmt::format("{} plugin(s) exercised", exercised) : notes};
}

}  // namespace dha::plugin_check
