#include "plugin_host/plugin_registry.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "plugin_host/config_validator.hpp"
#include "plugin_host/load_error.hpp"
#include "plugin_host/plugin_dirs.hpp"
#include "plugin_host/plugin_library.hpp"
#include "plugin_host/status_text.hpp"

namespace dha::plugin_host {

namespace {

struct LogContext {
  std::string plugin_id;
};

void log_from_plugin(void* ctx, dha_log_level level, dha_str message) {
  const auto* log = static_cast<const LogContext*>(ctx);
  const std::string_view text(message.data == nullptr ? "" : message.data, message.data == nullptr ? 0 : message.size);
  switch (level) {
    case DHA_LOG_DEBUG:
      spdlog::debug("[plugin {}] {}", log->plugin_id, text);
      break;
    case DHA_LOG_INFO:
      spdlog::info("[plugin {}] {}", log->plugin_id, text);
      break;
    case DHA_LOG_WARNING:
      spdlog::warn("[plugin {}] {}", log->plugin_id, text);
      break;
    default:
      spdlog::error("[plugin {}] {}", log->plugin_id, text);
      break;
  }
}

// The dha_host handed to one instance, with the log context it points to.
struct OwnedHost : dha_host {
  LogContext log_context;
};

}  // namespace

PluginRegistry::PluginRegistry() = default;
PluginRegistry::~PluginRegistry() = default;

void PluginRegistry::load_file(const std::string& path) { add(PluginLibrary::open(path)); }

void PluginRegistry::load_builtin(const dha_plugin_entry* entry, const std::string& name) {
  add(PluginLibrary::builtin(entry, name));
}

void PluginRegistry::load_named(const std::vector<std::string>& dirs, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    std::string found;
    for (const auto& dir : dirs) {
      const auto candidate = std::filesystem::path(dir) / (name + ".so");
      if (std::filesystem::exists(candidate)) {
        found = candidate.string();
        break;
      }
    }
    if (found.empty()) {
      throw PluginError(fmt::format("plugin \"{}\": no file {}.so in the plugin directories searched: {}", name, name,
                                    describe_plugin_dirs(dirs, false)));
    }
    load_file(found);
  }
}

void PluginRegistry::add(std::shared_ptr<PluginLibrary> library) {
  for (const auto& info : library->plugins()) {
    auto existing = by_id_.find(info.id);
    if (existing != by_id_.end()) {
      throw PluginError(fmt::format(
          "plugin {}: duplicate plugin id \"{}\", already provided by {} (plugin ABI {}.{}, host ABI {}.{})",
          library->origin(), info.id, existing->second->origin(), info.abi_major, info.abi_minor, DHA_ABI_VERSION_MAJOR,
          DHA_ABI_VERSION_MINOR));
    }
  }
  for (const auto& info : library->plugins()) {
    by_id_[info.id] = library;
    plugins_.push_back(info);
    spdlog::debug("loaded plugin \"{}\" {} from {}", info.id, info.version, library->origin());
  }
  libraries_.push_back(std::move(library));
}

const PluginInfo* PluginRegistry::find(const std::string& id) const {
  for (const auto& info : plugins_) {
    if (info.id == id) return &info;
  }
  return nullptr;
}

std::unique_ptr<PluginInstance> PluginRegistry::create(const std::string& id, const std::string& config_json) const {
  auto host = std::make_shared<OwnedHost>();
  host->struct_size = sizeof(dha_host);
  host->abi_major = DHA_ABI_VERSION_MAJOR;
  host->abi_minor = DHA_ABI_VERSION_MINOR;
  host->name = "db-autoscaler";
  host->version = DHA_HOST_VERSION;
  host->log_context.plugin_id = id;
  host->ctx = &host->log_context;
  host->log = &log_from_plugin;
  return create(id, config_json, std::move(host));
}

std::unique_ptr<PluginInstance> PluginRegistry::create(const std::string& id, const std::string& config_json,
                                                       std::shared_ptr<const dha_host> host) const {
  const PluginInfo* info = find(id);
  auto library_it = by_id_.find(id);
  if (info == nullptr || library_it == by_id_.end()) {
    std::string known;
    for (const auto& p : plugins_) known += (known.empty() ? "" : ", ") + p.id;
    throw PluginError(fmt::format("plugin \"{}\" is not loaded (loaded: {})", id, known.empty() ? "none" : known));
  }
  const std::string config = validate_plugin_config(id, info->config_schema, config_json);

  const dha_plugin* plugin = nullptr;
  std::string error;
  dha_status status = DHA_UNKNOWN;
  try {
    status =
        library_it->second->entry().create(host.get(), as_dha_str(id), as_dha_str(config), &plugin, string_sink(error));
  } catch (const std::exception& e) {
    throw PluginError(fmt::format("plugin \"{}\" ({}): create threw an exception: {}", id, info->origin, e.what()));
  } catch (...) {
    throw PluginError(fmt::format("plugin \"{}\" ({}): create threw an exception", id, info->origin));
  }
  if (status != DHA_OK) {
    throw PluginError(fmt::format("plugin \"{}\" ({}): create failed with {}: {}", id, info->origin,
                                  status_text(status), error.empty() ? "no message" : error));
  }
  if (plugin == nullptr || plugin->destroy == nullptr || plugin->get_extension == nullptr) {
    if (plugin != nullptr && plugin->destroy != nullptr) plugin->destroy(plugin);
    throw PluginError(fmt::format("plugin \"{}\" ({}): create returned an incomplete instance", id, info->origin));
  }
  return std::make_unique<PluginInstance>(library_it->second, *info, plugin, std::move(host));
}

}  // namespace dha::plugin_host
