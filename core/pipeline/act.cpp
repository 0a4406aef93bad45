#include "pipeline/act.hpp"

#include <stdexcept>

#include "operator/api_calls.hpp"
#include "pipeline/own_write.hpp"

namespace dha::pipeline {
namespace {

sdk::ActuatorRequest request_for(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha) {
  sdk::ActuatorRequest request;
  request.dha = dha;
  request.target = target.object.get();
  request.replicas_path = replicas_path;
  return request;
}

}  // namespace

sdk::ActuatorPlan Act::plan(const Target& target, sdk::ActuatorRequest request) const {
  const std::string& id = target.engine->target.actuator;
  const auto* actuator = plugins_.actuator(id);
  if (actuator == nullptr) throw std::runtime_error("actuator \"" + id + "\" is not loaded");
  const auto result = actuator->call(actuator->actuator()->plan, request.to_json());
  if (!result.ok()) throw std::runtime_error("actuator " + id + ": " + result.error);
  return sdk::ActuatorPlan::from_json(sdk::json::parse(result.output, "actuator plan"));
}

void Act::carry_out(const Target& target, const sdk::ActuatorPlan& steps) const {
  for (const auto& step : steps.requests) {
    const std::string body = sdk::json::stringify(step.body);
    op::counted_api_call(metrics_, "patch", [&] {
      if (step.patch_type == "json") return client_.json_patch(target.ref, body, step.subresource);
      if (step.subresource == "scale") return client_.patch_scale(target.ref, body);
      if (step.subresource == "status") return client_.patch_status(target.ref, body);
      return client_.merge_patch(target.ref, body);
    });
  }
}

void Act::scale(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha, std::int32_t current,
                std::int32_t desired) const {
  auto request = request_for(target, replicas_path, dha);
  request.current_replicas = current;
  request.desired_replicas = desired;
  carry_out(target, plan(target, std::move(request)));
}

void Act::release(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha) const {
  auto request = request_for(target, replicas_path, dha);
  request.action = sdk::ActuatorRequest::Action::kRelease;
  request.current_replicas = 0;
  carry_out(target, plan(target, std::move(request)));
}

bool Act::adopt_unrecorded_patch(model::DecisionState& state, const Target& target, const std::string& replicas_path,
                                 const sdk::DhaRef& dha, std::int32_t current, std::int64_t now) const {
  if (!state.last_applied_replicas || *state.last_applied_replicas == current) return false;
  // What this DHA's actuator would write to bring the target to its current count, and the same
  // for another DHA and for another count: which parts of the write say who and how many.
  auto probe = [&](const std::string& name, std::int64_t count) {
    auto request = request_for(target, replicas_path, {dha.namespace_name, name});
    request.current_replicas = current;
    request.desired_replicas = count;
    return plan(target, std::move(request));
  };
  bool ours = false;
  try {
    ours = target_shows_our_write(probe(dha.name, current), probe(dha.name + "-another", current),
                                  probe(dha.name, std::int64_t{current} + 1), *target.object, replicas_path);
  } catch (const std::exception&) {
    // An actuator that cannot plan the probe cannot vouch for the count: a competing writer's.
  }
  return adopt_if_ours(state, current, now, ours);
}

}  // namespace dha::pipeline
