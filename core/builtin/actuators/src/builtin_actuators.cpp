#include "dha/actuators/builtin_actuators.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "dha/sdk/export.hpp"

namespace dha::actuators {
namespace {

namespace json = sdk::json;

// {"metadata":{"annotations":{"<marker>": <value or null>, "<applied>": "<count>" or null}}},
// optionally with the replicas field at `replicas_path` ("spec.replicas" → {"spec":{"replicas":N}}).
// A null marker (release) clears both annotations.
std::string marker_patch(const std::string* marker_value, const std::string& replicas_path, const int64_t* replicas,
                         const int64_t* applied) {
  rapidjson::StringBuffer buffer;
  json::Writer w(buffer);
  w.StartObject();
  json::write_key(w, "metadata");
  w.StartObject();
  json::write_key(w, "annotations");
  w.StartObject();
  json::write_key(w, kManagedByAnnotation);
  if (marker_value != nullptr) {
    json::write_string(w, *marker_value);
  } else {
    w.Null();
  }
  json::write_key(w, kAppliedReplicasAnnotation);
  if (marker_value != nullptr && applied != nullptr) {
    json::write_string(w, std::to_string(*applied));
  } else {
    w.Null();
  }
  w.EndObject();
  w.EndObject();
  if (replicas != nullptr) {
    const auto parts = json::path_steps(replicas_path);
    for (std::size_t i = 0; i < parts.size(); ++i) {
      json::write_key(w, parts[i]);
      if (i + 1 < parts.size()) w.StartObject();
    }
    w.Int64(*replicas);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) w.EndObject();
  }
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void check_path(const std::string& path) {
  if (path.empty() || path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos)
    throw sdk::Error(DHA_INVALID_ARGUMENT, "replicasPath \"" + path + "\" is not a dot path");
  if (path.rfind("metadata.", 0) == 0 || path == "metadata" || path.rfind("status", 0) == 0)
    throw sdk::Error(DHA_INVALID_ARGUMENT, "replicasPath \"" + path + "\" must point into the object's spec");
}

void check_desired(const sdk::ActuatorRequest& r) {
  if (r.desired_replicas < 0) throw sdk::Error(DHA_INVALID_ARGUMENT, "desiredReplicas must be >= 0");
}

// Release: remove the marker only when it names this DHA (another DHA's claim is not ours).
sdk::ActuatorPlan release_plan(const sdk::ActuatorRequest& r) {
  sdk::ActuatorPlan plan;
  if (r.target != nullptr && managed_by(*r.target) == r.dha.name)
    plan.requests.emplace_back("", "merge", marker_patch(nullptr, "", nullptr, nullptr));
  return plan;
}

}  // namespace

std::string managed_by(const json::Value& target) {
  return std::string(json::annotation(target, kManagedByAnnotation));
}

sdk::ActuatorPlan MergePatchActuator::plan(const sdk::ActuatorRequest& r) const {
  if (r.action == sdk::ActuatorRequest::Action::kRelease) return release_plan(r);
  check_path(r.replicas_path);
  check_desired(r);
  sdk::ActuatorPlan plan;
  plan.requests.emplace_back("", "merge",
                             marker_patch(&r.dha.name, r.replicas_path, &r.desired_replicas, &r.desired_replicas));
  return plan;
}

sdk::ActuatorPlan ScaleSubresourceActuator::plan(const sdk::ActuatorRequest& r) const {
  if (r.action == sdk::ActuatorRequest::Action::kRelease) return release_plan(r);
  check_desired(r);
  sdk::ActuatorPlan plan;
  // The count is announced first: dying between the two requests then leaves an announcement
  // that does not match the replicas (ignored), never replicas nobody claims.
  plan.requests.emplace_back("", "merge", marker_patch(&r.dha.name, "", nullptr, &r.desired_replicas));
  // The scale subresource always carries the count at spec.replicas, whatever the object calls it.
  plan.requests.emplace_back("scale", "merge", "{\"spec\":{\"replicas\":" + std::to_string(r.desired_replicas) + "}}");
  return plan;
}

DHA_DEFINE_PLUGIN_ENTRY(builtin_actuators_entry, MergePatchActuator, ScaleSubresourceActuator)

}  // namespace dha::actuators
