#include "plugin_host/range_query_call.hpp"

#include <cstddef>

namespace dha::plugin_host {

CallResult call_range_query(const PluginInstance& source, const std::string& input) {
  const dha_metrics* table = source.metrics();
  if (table == nullptr) {
    return CallResult{DHA_UNIMPLEMENTED, {}, "plugin \"" + source.info().id + "\" is not a metric source"};
  }
  // The field exists in our header, but a 1.0 plugin's table ends before it: reading it would
  // read past the plugin's struct.
  if (table->struct_size < offsetof(dha_metrics, range_query) + sizeof(table->range_query)) {
    const PluginInfo& info = source.info();
    return CallResult{DHA_UNIMPLEMENTED,
                      {},
                      "metric source \"" + info.id + "\" (plugin ABI " + std::to_string(info.abi_major) + "." +
                          std::to_string(info.abi_minor) + ") has no range queries"};
  }
  return source.call(table->range_query, input);
}

}  // namespace dha::plugin_host
