#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The tenant quota ceiling: how many instances the namespace's ResourceQuotas
// still leave room for, given what one more database pod requests.
namespace dha::pipeline {

// One pod's request, in milli-units (millicores; memory in milli-bytes like Quantity.MilliValue).
struct PodResources {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_milli = 0;
  bool operator==(const PodResources&) const = default;
};

// The cozy-lib preset ladder: "t1.micro", "c1.2xlarge", the legacy aliases "nano".."2xlarge".
// nullopt for an unknown preset (then no ceiling applies).
std::optional<PodResources> preset_resources(std::string_view preset);

// The per-pod request: explicit cpu and memory when both are non-empty strings that parse as
// quantities, otherwise the preset. An empty preset means "none" (the engine adapter already
// applied its default preset, see ext/engine.h), so the result is nullopt: no ceiling.
std::optional<PodResources> per_pod_resources(const std::optional<std::string>& cpu,
                                              const std::optional<std::string>& memory, std::string_view preset);

// MaxReplicasWithinQuota: for the six (hard, used) pairs (cpu, requests.cpu, limits.cpu and
// the same for memory) and every quota with that hard name in status.hard,
// current + floor(max(hard - used, 0) / perPod); the minimum over all of them, or nullopt when
// no quota names any of the six resources. `quotas` are ResourceQuota objects as read from the
// API server; values that are not quantity strings are skipped.
std::optional<std::int32_t> max_replicas_within_quota(const std::vector<const rapidjson::Value*>& quotas,
                                                      std::int32_t current, const PodResources& per_pod);

}  // namespace dha::pipeline
