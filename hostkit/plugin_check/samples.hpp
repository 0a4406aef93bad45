#pragma once

#include <string>
#include <vector>

#include "dha/sdk/engine_types.hpp"

// The inputs the conformance checks send a plugin, in one place so that the checks and
// `dha-plugin-check --print-samples` show the same objects.
namespace dha::plugin_check {

// A tenant name built to break out of a label matcher if a plugin interpolated it itself.
inline constexpr const char* kHostileName = R"(db"} or vector(1) or up{x=")";
inline constexpr const char* kNamespace = "tenant-conformance";

// A target object of the given kind with a replica count wherever adapters usually keep it
// (spec.replicas and spec.instances), or without one.
std::string sample_target(const sdk::TargetKind& kind, bool with_replicas);

// The queries request for a target of `kind` named `name` whose release is `release`.
sdk::QueryRequest sample_query_request(const sdk::TargetKind& kind, const std::string& name,
                                       const std::string& release);

// {"target", "object"} for health: the health object the topology names, without a status (so it
// does not tell health), or the target itself when the topology says the target tells health.
std::string sample_health_request(const std::string& target, const sdk::Topology& topology);

// A proposal of 3 -> 4 replicas for a gate, and the matching scale for an actuator.
std::string sample_gate_request();
std::string sample_plan_request();

// What every function that reads a document must refuse with a status and a message.
const std::vector<std::string>& malformed_inputs();

}  // namespace dha::plugin_check
