#include "pipeline/finalize.hpp"

#include <spdlog/spdlog.h>

#include <memory>

#include "dha/kube/json.hpp"
#include "dha/model/spec.hpp"
#include "host/api_calls.hpp"
#include "pipeline/target.hpp"

namespace dha::pipeline {

void Finalize::release_target(const rapidjson::Value& dha) const {
  const std::string ns = kube::namespace_of(dha);
  const std::string name = kube::name_of(dha);
  try {
    const auto* spec_json = kube::find_path(dha, {"spec"});
    if (spec_json == nullptr) throw std::runtime_error("no spec");
    const model::DhaSpec spec = model::parse_spec(*spec_json);
    auto located = locate_target(plugins_, *spec.target_ref, ns);
    if (std::holds_alternative<Stop>(located)) return;  // no adapter: nothing of ours to release
    Target& target = std::get<Target>(located);
    // From the API server, not the cache: the release must see the marker as it is now.
    auto object = op::counted_api_call(metrics_, "get", [&] { return client_.get_if_exists(target.ref); });
    if (!object) return;  // the target is gone: nothing to release
    target.object = std::make_shared<const rapidjson::Document>(std::move(*object));
    std::string replicas_path = "spec.replicas";
    const auto topology = read_topology(target);
    if (const auto* t = std::get_if<sdk::Topology>(&topology)) replicas_path = t->replicas_path;
    act_.release(target, replicas_path, {ns, name});
    spdlog::info("released {} {}: managed-by marker cleared", target.engine->target.kind, target.ref.name);
  } catch (const std::exception& e) {
    spdlog::warn("releasing the target failed (finalizer removed anyway): {}", e.what());
  }
}

}  // namespace dha::pipeline
