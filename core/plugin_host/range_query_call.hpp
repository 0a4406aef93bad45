#pragma once

#include <string>

#include "plugin_host/plugin_instance.hpp"

namespace dha::plugin_host {

// Calls the metric source's range_query with `input` (a RangeQuery document). A plugin that is
// not a metric source, or whose dha_metrics table ends before range_query (one built against
// ABI 1.0), is never called: the answer is DHA_UNIMPLEMENTED with a message saying so.
CallResult call_range_query(const PluginInstance& source, const std::string& input);

}  // namespace dha::plugin_host
