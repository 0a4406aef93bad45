#include "pipeline/act.hpp"

#include <stdexcept>

#include "dha/kube/errors.hpp"
#include "dha/kube/json.hpp"
#include "host/api_calls.hpp"
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

// The step's body with the precondition "still at `version`": a JSON patch gets a test of
// /metadata/resourceVersion first; a merge patch (of the object, its scale or its status) gets
// metadata.resourceVersion, which the API server compares with the stored one.
std::string with_version_precondition(const sdk::PlannedRequest& step, const std::string& version) {
  sdk::json::Document body;
  body.CopyFrom(step.body, body.GetAllocator());
  auto& a = body.GetAllocator();
  rapidjson::Value value(version.c_str(), static_cast<rapidjson::SizeType>(version.size()), a);
  if (step.patch_type == "json" && body.IsArray()) {
    rapidjson::Value test(rapidjson::kObjectType);
    test.AddMember("op", "test", a);
    test.AddMember("path", "/metadata/resourceVersion", a);
    test.AddMember("value", value, a);
    rapidjson::Value ops(rapidjson::kArrayType);
    ops.PushBack(test, a);
    for (auto& op : body.GetArray()) ops.PushBack(op, a);
    static_cast<rapidjson::Value&>(body).Swap(ops);
  } else if (body.IsObject()) {
    if (!body.HasMember("metadata") || !body["metadata"].IsObject()) {
      body.RemoveMember("metadata");
      body.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), a);
    }
    body["metadata"].RemoveMember("resourceVersion");
    body["metadata"].AddMember("resourceVersion", value, a);
  }
  return sdk::json::stringify(body);
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

void Act::carry_out(const Target& target, const sdk::ActuatorPlan& steps, bool conditional) const {
  // Every write carries the version it follows from: the first the one the decision was made
  // on, each later one the version the previous write left (the marker patch before a /scale
  // write). A change made in between is refused (409, or 422 for a failed JSON-patch test)
  // instead of silently overwritten.
  std::string version = target.object ? kube::string_at(*target.object, {"metadata", "resourceVersion"}) : "";
  bool first = true;
  for (const auto& step : steps.requests) {
    const bool guarded = conditional && !version.empty();
    const std::string body = guarded ? with_version_precondition(step, version) : sdk::json::stringify(step.body);
    try {
      const rapidjson::Document response = op::counted_api_call(metrics_, "patch", [&] {
        if (step.patch_type == "json") return client_.json_patch(target.ref, body, step.subresource);
        if (step.subresource == "scale") return client_.patch_scale(target.ref, body);
        if (step.subresource == "status") return client_.patch_status(target.ref, body);
        return client_.merge_patch(target.ref, body);
      });
      // A /scale answer carries the object's resourceVersion too.
      if (reader_ != nullptr) reader_->wrote(target.ref, response);
      version = kube::resource_version_of(response);
    } catch (const kube::ApiError& e) {
      const bool refused_precondition =
          e.reason() == kube::Reason::Conflict || (step.patch_type == "json" && e.reason() == kube::Reason::Invalid);
      if (guarded && refused_precondition)
        throw TargetChanged((first ? "the target changed since it was read (resourceVersion "
                                   : "the target changed between our writes (resourceVersion ") +
                            version + "): " + e.message());
      throw;
    }
    first = false;
  }
}

void Act::scale(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha, std::int32_t current,
                std::int32_t desired) const {
  auto request = request_for(target, replicas_path, dha);
  request.current_replicas = current;
  request.desired_replicas = desired;
  carry_out(target, plan(target, std::move(request)), true);
}

void Act::release(const Target& target, const std::string& replicas_path, const sdk::DhaRef& dha) const {
  auto request = request_for(target, replicas_path, dha);
  request.action = sdk::ActuatorRequest::Action::kRelease;
  request.current_replicas = 0;
  carry_out(target, plan(target, std::move(request)), false);
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
