#pragma once

#include <memory>
#include <string>

#include "dha/abi.h"
#include "dha/ext/actuator.h"
#include "dha/ext/engine.h"
#include "dha/ext/gate.h"
#include "dha/ext/metrics.h"
#include "plugin_host/plugin_info.hpp"
#include "plugin_host/string_sink.hpp"

namespace dha::plugin_host {

class PluginLibrary;

// What one capability call returned: the status, the JSON written to the output sink and the
// message written to the error sink.
struct CallResult {
  dha_status status = DHA_UNKNOWN;
  std::string output;
  std::string error;
  bool ok() const { return status == DHA_OK; }
};

// A live plugin instance. Destroys the instance through the plugin's own `destroy`, then
// releases its library (in that order: the code must outlive the instance).
class PluginInstance {
 public:
  PluginInstance(std::shared_ptr<PluginLibrary> library, PluginInfo info, const dha_plugin* plugin,
                 std::shared_ptr<const dha_host> host);
  ~PluginInstance();
  PluginInstance(const PluginInstance&) = delete;
  PluginInstance& operator=(const PluginInstance&) = delete;

  const PluginInfo& info() const { return info_; }
  const dha_plugin* raw() const { return plugin_; }

  // Capability tables, or nullptr when the plugin does not offer one (or offers a table smaller
  // than the 1.0 layout, which is treated as not offered and logged).
  const dha_engine* engine() const { return engine_; }
  const dha_metrics* metrics() const { return metrics_; }
  const dha_gate* gate() const { return gate_; }
  const dha_actuator* actuator() const { return actuator_; }

  // Calls `fn(plugin, input, out, error)` for the capability functions of ext/*.h. An exception
  // escaping a hand-written plugin becomes DHA_INTERNAL instead of unwinding through the host.
  CallResult call(dha_status (*fn)(const dha_plugin*, dha_str, dha_sink, dha_sink), const std::string& input) const;
  CallResult call(dha_status (*fn)(const dha_plugin*, dha_sink, dha_sink)) const;

 private:
  std::shared_ptr<PluginLibrary> library_;
  PluginInfo info_;
  const dha_plugin* plugin_;
  std::shared_ptr<const dha_host> host_;  // must outlive the instance
  const dha_engine* engine_ = nullptr;
  const dha_metrics* metrics_ = nullptr;
  const dha_gate* gate_ = nullptr;
  const dha_actuator* actuator_ = nullptr;
};

}  // namespace dha::plugin_host
