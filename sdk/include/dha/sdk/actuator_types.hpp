#pragma once

// Typed views of the dha.actuator/1 documents (sdk/include/dha/ext/actuator.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/gate_types.hpp"
#include "dha/sdk/json.hpp"

namespace dha::sdk {

// plan() input. `target` is a borrowed view into the request document.
struct ActuatorRequest {
  enum class Action { kScale, kRelease };
  Action action = Action::kScale;
  DhaRef dha;
  const json::Value* target = nullptr;
  std::string replicas_path = "spec.replicas";
  std::optional<int64_t> current_replicas;
  int64_t desired_replicas = 0;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "action");
    json::write_string(w, action == Action::kScale ? "scale" : "release");
    json::write_key(w, "dha");
    dha.write(w);
    json::write_key(w, "target");
    if (target)
      target->Accept(w);
    else
      w.Null();
    json::write_key(w, "replicasPath");
    json::write_string(w, replicas_path);
    json::write_key(w, "currentReplicas");
    detail::write_optional_int(w, current_replicas);
    json::write_key(w, "desiredReplicas");
    w.Int64(desired_replicas);
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static ActuatorRequest from_json(const json::Value& v) {
    constexpr std::string_view what = "actuator input";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "actuator input: expected a JSON object");
    ActuatorRequest r;
    const std::string action = json::require_string(v, "action", what);
    if (action == "scale") {
      r.action = Action::kScale;
    } else if (action == "release") {
      r.action = Action::kRelease;
    } else {
      throw Error(DHA_INVALID_ARGUMENT,
                  "actuator input: action must be \"scale\" or \"release\", got \"" + action + "\"");
    }
    r.dha = DhaRef::from_json(json::require_object(v, "dha", what), "actuator input.dha");
    r.target = &json::require_object(v, "target", what);
    r.replicas_path = json::string_or(v, "replicasPath", "spec.replicas", what);
    r.current_replicas = json::optional_integer(v, "currentReplicas", what);
    r.desired_replicas = json::integer_or(v, "desiredReplicas", 0, what);
    if (r.action == Action::kScale && !json::optional_integer(v, "desiredReplicas", what)) {
      throw json::field_error(what, "desiredReplicas", "present (an integer) for action \"scale\"");
    }
    return r;
  }
};

// One API request against the target object.
struct PlannedRequest {
  std::string subresource;           // "", "scale" or "status"
  std::string patch_type = "merge";  // "merge" or "json"
  json::Document body;               // the patch body

  PlannedRequest() = default;
  PlannedRequest(std::string sub, std::string type, std::string_view body_json)
      : subresource(std::move(sub)),
        patch_type(std::move(type)),
        body(json::parse(body_json, "planned request body")) {}
};

struct ActuatorPlan {
  std::vector<PlannedRequest> requests;

  void write(json::Writer& w) const {
    w.StartObject();
    json::write_key(w, "requests");
    w.StartArray();
    for (const auto& r : requests) {
      w.StartObject();
      json::write_key(w, "subresource");
      json::write_string(w, r.subresource);
      json::write_key(w, "patchType");
      json::write_string(w, r.patch_type);
      json::write_key(w, "body");
      r.body.Accept(w);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  std::string to_json() const { return detail::to_json_text(*this); }
  static ActuatorPlan from_json(const json::Value& v) {
    constexpr std::string_view what = "actuator plan";
    if (!v.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "actuator plan: expected a JSON object");
    ActuatorPlan plan;
    const json::Value* list = json::optional_array(v, "requests", what);
    if (list == nullptr) throw json::field_error(what, "requests", "present (an array)");
    for (const auto& e : list->GetArray()) {
      if (!e.IsObject()) throw Error(DHA_INVALID_ARGUMENT, "actuator plan: every request must be an object");
      PlannedRequest r;
      r.subresource = json::string_or(e, "subresource", "", "actuator plan request");
      r.patch_type = json::string_or(e, "patchType", "merge", "actuator plan request");
      if (r.subresource != "" && r.subresource != "scale" && r.subresource != "status") {
        throw Error(
            DHA_INVALID_ARGUMENT,
            "actuator plan request: subresource must be \"\", \"scale\" or \"status\", got \"" + r.subresource + "\"");
      }
      if (r.patch_type != "merge" && r.patch_type != "json") {
        throw Error(DHA_INVALID_ARGUMENT,
                    "actuator plan request: patchType must be \"merge\" or \"json\", got \"" + r.patch_type + "\"");
      }
      // A merge patch is an object (RFC 7386), a JSON patch a list of operations (RFC 6902).
      const json::Value* body = json::find(e, "body");
      const bool json_patch = r.patch_type == "json";
      if (body == nullptr || (json_patch ? !body->IsArray() : !body->IsObject())) {
        throw json::field_error("actuator plan request", "body",
                                json_patch ? "an array of operations (patchType json)" : "an object (patchType merge)");
      }
      r.body.CopyFrom(*body, r.body.GetAllocator());
      plan.requests.push_back(std::move(r));
    }
    return plan;
  }
};

}  // namespace dha::sdk
