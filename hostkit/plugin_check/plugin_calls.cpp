#include "plugin_calls.hpp"

#include "plugin_config.hpp"
#include "plugin_host/status_text.hpp"

namespace dha::plugin_check {

using plugin_host::CallResult;
using plugin_host::PluginInstance;

std::unique_ptr<Loaded> load_all(const Options& options) { return load_all(options, options.metrics_url); }

std::unique_ptr<Loaded> load_all(const Options& options, const std::string& metrics_url) {
  auto loaded = std::make_unique<Loaded>();
  loaded->registry.load_file(options.file);
  for (const auto& info : loaded->registry.plugins()) {
    loaded->instances.push_back(loaded->registry.create(info.id, config_for(options, info, metrics_url)));
  }
  return loaded;
}

CallResult checked(const PluginInstance& p, const CallResult& result, std::string_view what) {
  if (result.error.rfind("plugin let an exception escape", 0) == 0) {
    fail("plugin \"{}\": {}: {}", p.info().id, what, result.error);
  }
  return result;
}

sdk::json::Document parse_or_fail(const PluginInstance& p, const std::string& text, std::string_view what) {
  sdk::json::Document d;
  if (d.Parse(text.c_str()).HasParseError())
    fail("plugin \"{}\": {} did not return valid JSON: {}", p.info().id, what, text);
  return d;
}

std::vector<sdk::TargetKind> targets_of(const PluginInstance& p) {
  const CallResult r = checked(p, p.call(p.engine()->targets), "targets");
  if (!r.ok())
    fail("plugin \"{}\": targets failed with {}: {}", p.info().id, plugin_host::status_text(r.status), r.error);
  auto doc = parse_or_fail(p, r.output, "targets");
  try {
    return sdk::targets_from_json(doc);
  } catch (const std::exception& e) {
    fail("plugin \"{}\": targets: {}", p.info().id, e.what());
  }
}

sdk::Topology topology_of(const PluginInstance& p, const std::string& target) {
  const CallResult r = checked(p, p.call(p.engine()->topology, target), "topology");
  if (!r.ok())
    fail("plugin \"{}\": topology failed with {}: {}", p.info().id, plugin_host::status_text(r.status), r.error);
  auto doc = parse_or_fail(p, r.output, "topology");
  try {
    return sdk::Topology::from_json(doc);
  } catch (const std::exception& e) {
    fail("plugin \"{}\": topology: {}", p.info().id, e.what());
  }
}

}  // namespace dha::plugin_check
