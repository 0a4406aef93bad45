#include "pipeline/target.hpp"

#include <fmt/format.h>

#include "dha/kube/errors.hpp"

namespace dha::pipeline {

std::variant<Target, Stop> locate_target(const op::PluginSet& plugins, const model::TargetRef& target_ref,
                                         const std::string& ns) {
  Target t;
  t.engine = plugins.engine_for(target_ref.api_group, target_ref.kind);
  if (t.engine == nullptr) {
    return Stop{kNoAdapter,
                fmt::format("no engine adapter handles {}/{}; the loaded adapters handle: {}",
                            target_ref.api_group.empty() ? model::kDefaultApiGroup : target_ref.api_group,
                            target_ref.kind, plugins.handled_kinds()),
                std::nullopt};
  }
  const auto& kind = t.engine->target;
  t.ref = kube::ResourceRef{kind.api_group, kind.version, kind.plural, ns, target_ref.name};
  return t;
}

std::optional<Stop> read_target(Target& t, const ObjectReader& read) {
  const std::string& kind = t.engine->target.kind;
  try {
    t.object = read(t.ref);
  } catch (const kube::ApiError& e) {
    return Stop{kNotScalable, fmt::format("cannot read {} {}/{}: {}", kind, t.ref.namespace_, t.ref.name, e.what()),
                std::nullopt};
  }
  if (!t.object)
    return Stop{kNotScalable, fmt::format("{} {}/{} not found", kind, t.ref.namespace_, t.ref.name), std::nullopt};
  return std::nullopt;
}

std::variant<sdk::Topology, Stop> read_topology(const Target& t) {
  const auto* engine = t.engine->instance;
  const auto topo = engine->call(engine->engine()->topology, kube::to_json(*t.object));
  if (!topo.ok())
    return Stop{kNotScalable, topo.error.empty() ? "the engine adapter cannot read the target" : topo.error,
                std::nullopt};
  try {
    return sdk::Topology::from_json(sdk::json::parse(topo.output, "topology"));
  } catch (const std::exception& e) {
    return Stop{kNotScalable, std::string("engine adapter answer unreadable: ") + e.what(), std::nullopt};
  }
}

}  // namespace dha::pipeline
