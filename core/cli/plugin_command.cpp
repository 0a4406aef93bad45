#include <iostream>

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "commands.hpp"
#include "exit.hpp"
#include "plugin_host/load_error.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace dha::cli {

namespace {

void write_string_array(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w, const std::vector<std::string>& items) {
  w.StartArray();
  for (const auto& item : items) w.String(item);
  w.EndArray();
}

// The JSON printed by `plugin inspect`: one entry per plugin in the file.
std::string describe(const plugin_host::PluginRegistry& registry, const std::string& file) {
  rapidjson::StringBuffer out;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(out);
  w.StartObject();
  w.Key("file");
  w.String(file);
  w.Key("hostAbi");
  w.String(std::to_string(DHA_ABI_VERSION_MAJOR) + "." + std::to_string(DHA_ABI_VERSION_MINOR));
  w.Key("plugins");
  w.StartArray();
  for (const auto& p : registry.plugins()) {
    w.StartObject();
    w.Key("id");
    w.String(p.id);
    w.Key("name");
    w.String(p.name);
    w.Key("version");
    w.String(p.version);
    w.Key("vendor");
    w.String(p.vendor);
    w.Key("description");
    w.String(p.description);
    w.Key("abi");
    w.String(std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor));
    w.Key("capabilities");
    write_string_array(w, p.capabilities);
    w.Key("configSchema");
    rapidjson::Document schema;
    if (!p.config_schema.empty() && !schema.Parse(p.config_schema.c_str()).HasParseError()) {
      schema.Accept(w);
    } else {
      w.Null();
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(out.GetString()) + "\n";
}

void load_or_exit(plugin_host::PluginRegistry& registry, const std::string& file) {
  try {
    registry.load_file(file);
  } catch (const plugin_host::PluginError& e) {
    throw Exit(kExitFailure, e.what());
  }
}

}  // namespace

void add_plugin_command(CLI::App& app) {
  auto* plugin = app.add_subcommand("plugin", "Inspect and check plugin shared objects");
  plugin->require_subcommand(1);

  static std::string inspect_file;
  auto* inspect = plugin->add_subcommand("inspect", "Print the plugins in FILE.so as JSON");
  inspect->add_option("file", inspect_file, "Plugin shared object")->required();
  inspect->callback([] {
    plugin_host::PluginRegistry registry;
    load_or_exit(registry, inspect_file);
    std::cout << describe(registry, inspect_file);
  });

  static std::string check_file;
  static std::string check_config;
  auto* check = plugin->add_subcommand(
      "check", "Load FILE.so, validate the handshake and create each plugin; non-zero exit on any error");
  check->add_option("file", check_file, "Plugin shared object")->required();
  check->add_option("--config", check_config, "JSON configuration passed to every plugin in the file");
  check->callback([] {
    plugin_host::PluginRegistry registry;
    load_or_exit(registry, check_file);
    for (const auto& info : registry.plugins()) {
      try {
        auto instance = registry.create(info.id, check_config);
        for (const auto& capability : info.capabilities) {
          // Capabilities this host does not know (a newer revision, say) are not checked.
          const bool known = capability == DHA_EXT_ENGINE || capability == DHA_EXT_METRICS ||
                             capability == DHA_EXT_GATE || capability == DHA_EXT_ACTUATOR;
          if (!known) continue;
          const bool offered = (capability == DHA_EXT_ENGINE && instance->engine() != nullptr) ||
                               (capability == DHA_EXT_METRICS && instance->metrics() != nullptr) ||
                               (capability == DHA_EXT_GATE && instance->gate() != nullptr) ||
                               (capability == DHA_EXT_ACTUATOR && instance->actuator() != nullptr);
          if (!offered) {
            throw Exit(kExitFailure, "plugin " + check_file + ": plugin \"" + info.id + "\" declares " + capability +
                                         " but get_extension does not return a usable table");
          }
        }
      } catch (const plugin_host::PluginError& e) {
        throw Exit(kExitFailure, e.what());
      }
      std::cout << "ok " << info.id << " " << info.version << " (ABI " << info.abi_major << "." << info.abi_minor
                << ") from " << check_file << "\n";
    }
  });
}

}  // namespace dha::cli
