#pragma once

#include <optional>
#include <string>

#include "dha/kube/client.hpp"
#include "dha/model/spec.hpp"
#include "pipeline/stop.hpp"
#include "pipeline/target.hpp"

// One DHA per target, held by the operator itself (the admission webhook may be down or the
// second DHA older than it): a DHA never acts on a target whose managed-by marker names another
// DHA that exists and is not being deleted. A marker naming a DHA that is gone is stale and
// claims nothing (adopting such a target is how a recreated DHA takes over).
namespace dha::pipeline {

inline constexpr const char* kTargetClaimed = "TargetClaimed";

// Reads the DHA the marker names (one GET, only when the marker names another DHA).
std::optional<Stop> claimed_by_another(kube::Client& client, const Target& target, const model::TargetRef& ref,
                                       const std::string& ns, const std::string& dha_name,
                                       std::optional<std::int32_t> current);

}  // namespace dha::pipeline
