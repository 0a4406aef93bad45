#include "plugin_host/plugin_instance.hpp"

#include "plugin_host/calls_in_flight.hpp"

#include <cstddef>

#include <spdlog/spdlog.h>

#include "plugin_host/plugin_library.hpp"

namespace dha::plugin_host {

namespace {

// A capability table is usable when it holds at least its 1.0 function pointers.
template <class Table>
const Table* lookup(const dha_plugin* plugin, const char* id, size_t min_size, const std::string& plugin_id) {
  const void* raw = nullptr;
  try {
    raw = plugin->get_extension(plugin, id);
  } catch (...) {
    spdlog::error("plugin \"{}\": get_extension(\"{}\") threw an exception; capability ignored", plugin_id, id);
    return nullptr;
  }
  if (raw == nullptr) return nullptr;
  const auto* table = static_cast<const Table*>(raw);
  if (table->struct_size < min_size) {
    spdlog::error("plugin \"{}\": capability {} table is {} bytes, smaller than its 1.0 layout ({} bytes); ignored",
                  plugin_id, id, table->struct_size, min_size);
    return nullptr;
  }
  return table;
}

template <class Fn>
CallResult guarded(Fn&& invoke) {
  CallResult result;
  try {
    result.status = invoke(string_sink(result.output), string_sink(result.error));
  } catch (const std::exception& e) {
    result.status = DHA_INTERNAL;
    result.error = std::string("plugin let an exception escape: ") + e.what();
  } catch (...) {
    result.status = DHA_INTERNAL;
    result.error = "plugin let an exception escape";
  }
  return result;
}

}  // namespace

PluginInstance::PluginInstance(std::shared_ptr<PluginLibrary> library, PluginInfo info, const dha_plugin* plugin,
                               std::shared_ptr<const dha_host> host)
    : library_(std::move(library)), info_(std::move(info)), plugin_(plugin), host_(std::move(host)) {
  engine_ = lookup<dha_engine>(plugin_, DHA_EXT_ENGINE, offsetof(dha_engine, health) + sizeof(void*), info_.id);
  metrics_ =
      lookup<dha_metrics>(plugin_, DHA_EXT_METRICS, offsetof(dha_metrics, instant_query) + sizeof(void*), info_.id);
  gate_ = lookup<dha_gate>(plugin_, DHA_EXT_GATE, offsetof(dha_gate, evaluate) + sizeof(void*), info_.id);
  actuator_ = lookup<dha_actuator>(plugin_, DHA_EXT_ACTUATOR, offsetof(dha_actuator, plan) + sizeof(void*), info_.id);
}

PluginInstance::~PluginInstance() {
  try {
    plugin_->destroy(plugin_);
  } catch (...) {
    spdlog::error("plugin \"{}\": destroy threw an exception", info_.id);
  }
}

CallResult PluginInstance::call(dha_status (*fn)(const dha_plugin*, dha_str, dha_sink, dha_sink),
                                const std::string& input) const {
  if (fn == nullptr) return CallResult{DHA_UNIMPLEMENTED, {}, "capability function is NULL"};
  const CallInFlight counted(info_.id);
  return guarded([&](dha_sink out, dha_sink err) { return fn(plugin_, as_dha_str(input), out, err); });
}

CallResult PluginInstance::call(dha_status (*fn)(const dha_plugin*, dha_sink, dha_sink)) const {
  if (fn == nullptr) return CallResult{DHA_UNIMPLEMENTED, {}, "capability function is NULL"};
  const CallInFlight counted(info_.id);
  return guarded([&](dha_sink out, dha_sink err) { return fn(plugin_, out, err); });
}

bool PluginInfo::has_capability(const std::string& id_with_revision) const {
  for (const auto& cap : capabilities) {
    if (cap == id_with_revision) return true;
  }
  return false;
}

}  // namespace dha::plugin_host
