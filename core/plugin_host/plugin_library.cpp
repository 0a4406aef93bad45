#include "plugin_host/plugin_library.hpp"

#include <boost/dll/shared_library.hpp>
#include <cstddef>
#include <filesystem>
#include <regex>

#include <fmt/format.h>
#include <rapidjson/document.h>

#include "plugin_host/load_error.hpp"

namespace dha::plugin_host {

struct PluginLibrary::Handle {
  boost::dll::shared_library library;
};

namespace {

// The smallest entry/descriptor a 1.0 plugin can have: up to and including the last 1.0 field.
constexpr size_t kEntrySizeV1_0 = offsetof(dha_plugin_entry, create) + sizeof(dha_plugin_entry::create);
constexpr size_t kDescriptorSizeV1_0 =
    offsetof(dha_plugin_descriptor, config_schema) + sizeof(dha_plugin_descriptor::config_schema);

std::string host_abi() { return fmt::format("{}.{}", DHA_ABI_VERSION_MAJOR, DHA_ABI_VERSION_MINOR); }

[[noreturn]] void refuse(const std::string& origin, const std::string& plugin_abi, const std::string& what) {
  throw PluginError(fmt::format("plugin {}: {} (plugin ABI {}, host ABI {})", origin, what, plugin_abi, host_abi()));
}

// A library built for another ABI major exports another symbol; naming it beats "no symbol".
std::string other_major_symbol(const boost::dll::shared_library& lib, unsigned& major) {
  for (major = 0; major < 10; ++major) {
    if (major == DHA_ABI_VERSION_MAJOR) continue;
    std::string symbol = fmt::format("dha_plugin_entry_v{}", major);
    if (lib.has(symbol)) return symbol;
  }
  return {};
}

const dha_plugin_entry* call_entry(dha_plugin_entry_fn fn, const std::string& origin) {
  try {
    return fn();
  } catch (const std::exception& e) {
    refuse(origin, "unknown", fmt::format("{} threw an exception: {}", DHA_PLUGIN_ENTRY_SYMBOL, e.what()));
  } catch (...) {
    refuse(origin, "unknown", fmt::format("{} threw an exception", DHA_PLUGIN_ENTRY_SYMBOL));
  }
}

bool valid_plugin_id(const char* id) {
  static const std::regex pattern("[a-z0-9][a-z0-9.-]{0,62}");
  return id != nullptr && std::regex_match(id, pattern);
}

std::string text(const char* s) { return s == nullptr ? std::string() : std::string(s); }

}  // namespace

PluginLibrary::PluginLibrary(std::unique_ptr<Handle> handle, const dha_plugin_entry* entry, std::string origin)
    : handle_(std::move(handle)), entry_(entry), origin_(std::move(origin)) {}

PluginLibrary::~PluginLibrary() = default;

std::shared_ptr<PluginLibrary> PluginLibrary::open(const std::string& path) {
  std::error_code exists_error;
  if (!std::filesystem::is_regular_file(path, exists_error)) {
    refuse(path, "unknown", "no such file");
  }
  auto handle = std::make_unique<Handle>();
  boost::system::error_code ec;
  // rtld_local keeps each plugin's symbols to itself; rtld_now surfaces missing symbols at load.
  handle->library.load(path, ec, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
  if (ec) refuse(path, "unknown", fmt::format("cannot be loaded: {}", ec.message()));

  if (!handle->library.has(DHA_PLUGIN_ENTRY_SYMBOL)) {
    unsigned major = 0;
    const std::string other = other_major_symbol(handle->library, major);
    if (!other.empty()) {
      refuse(
          path, fmt::format("{}.x", major),
          fmt::format("exports {} instead of {}: it was built for another ABI major", other, DHA_PLUGIN_ENTRY_SYMBOL));
    }
    refuse(path, "unknown",
           fmt::format("missing entry symbol {}: not a db-autoscaler plugin, or built without "
                       "DHA_EXPORT_PLUGINS / the SDK's version script",
                       DHA_PLUGIN_ENTRY_SYMBOL));
  }
  // The entry point is a C function returning a pointer; nothing C++ crosses here.
  dha_plugin_entry_fn fn = &handle->library.get<const dha_plugin_entry*()>(DHA_PLUGIN_ENTRY_SYMBOL);
  const dha_plugin_entry* entry = call_entry(fn, path);
  if (entry == nullptr) refuse(path, "unknown", fmt::format("{} returned NULL", DHA_PLUGIN_ENTRY_SYMBOL));

  std::shared_ptr<PluginLibrary> library(new PluginLibrary(std::move(handle), entry, path));
  library->validate();
  return library;
}

std::shared_ptr<PluginLibrary> PluginLibrary::builtin(const dha_plugin_entry* entry, const std::string& name) {
  const std::string origin = "builtin:" + name;
  if (entry == nullptr) refuse(origin, "unknown", "entry table is NULL");
  std::shared_ptr<PluginLibrary> library(new PluginLibrary(nullptr, entry, origin));
  library->validate();
  return library;
}

void PluginLibrary::validate() {
  const dha_plugin_entry& e = *entry_;
  if (e.struct_size < kEntrySizeV1_0) {
    refuse(origin_, "unknown",
           fmt::format("entry struct_size is {} bytes, smaller than the {} bytes of an ABI 1.0 entry", e.struct_size,
                       kEntrySizeV1_0));
  }
  const std::string plugin_abi = fmt::format("{}.{}", e.abi_major, e.abi_minor);
  if (e.abi_major != DHA_ABI_VERSION_MAJOR) {
    refuse(origin_, plugin_abi, "ABI major version differs from the host's");
  }
  if (e.abi_minor > DHA_ABI_VERSION_MINOR) {
    refuse(origin_, plugin_abi, "plugin was built for a newer ABI minor than this host; upgrade db-autoscaler");
  }
  if (e.plugin_count == nullptr || e.plugin_descriptor == nullptr || e.create == nullptr) {
    refuse(origin_, plugin_abi, "entry table has a NULL function pointer");
  }

  uint32_t count = 0;
  try {
    count = e.plugin_count();
  } catch (...) {
    refuse(origin_, plugin_abi, "plugin_count threw an exception");
  }
  if (count == 0) refuse(origin_, plugin_abi, "library declares no plugins");

  for (uint32_t i = 0; i < count; ++i) {
    const dha_plugin_descriptor* d = nullptr;
    try {
      d = e.plugin_descriptor(i);
    } catch (...) {
      refuse(origin_, plugin_abi, fmt::format("plugin_descriptor({}) threw an exception", i));
    }
    if (d == nullptr) refuse(origin_, plugin_abi, fmt::format("plugin_descriptor({}) returned NULL", i));
    if (d->struct_size < kDescriptorSizeV1_0) {
      refuse(origin_, plugin_abi,
             fmt::format("descriptor {} struct_size is {} bytes, smaller than the {} bytes of an ABI 1.0 descriptor", i,
                         d->struct_size, kDescriptorSizeV1_0));
    }
    if (!valid_plugin_id(d->id)) {
      refuse(origin_, plugin_abi,
             fmt::format("descriptor {} has an invalid id \"{}\" (expected [a-z0-9][a-z0-9.-]*, at most 63 characters)",
                         i, text(d->id)));
    }
    if (d->capabilities == nullptr) {
      refuse(origin_, plugin_abi, fmt::format("plugin \"{}\" has a NULL capability list", d->id));
    }
    PluginInfo info;
    info.id = d->id;
    info.name = text(d->name);
    info.version = text(d->version);
    info.vendor = text(d->vendor);
    info.description = text(d->description);
    for (const char* const* cap = d->capabilities; *cap != nullptr; ++cap) info.capabilities.emplace_back(*cap);
    info.config_schema = text(d->config_schema);
    if (!info.config_schema.empty()) {
      rapidjson::Document schema;
      if (schema.Parse(info.config_schema.c_str()).HasParseError() || !schema.IsObject()) {
        refuse(origin_, plugin_abi,
               fmt::format("plugin \"{}\" declares a config_schema that is not a JSON object", d->id));
      }
    }
    info.origin = origin_;
    info.abi_major = e.abi_major;
    info.abi_minor = e.abi_minor;
    for (const PluginInfo& seen : plugins_) {
      if (seen.id == info.id) {
        refuse(origin_, plugin_abi, fmt::format("duplicate plugin id \"{}\" within the library", info.id));
      }
    }
    plugins_.push_back(std::move(info));
  }
}

}  // namespace dha::plugin_host
