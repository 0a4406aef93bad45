#include "pipeline/quota_ceiling.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "dha/model/quantity.hpp"

namespace dha::pipeline {
namespace {

constexpr std::int64_t kMi = 1024LL * 1024LL * 1000LL;  // one MiB in milli-bytes
constexpr std::int64_t kGi = 1024LL * kMi;

struct PresetEntry {
  std::string_view name;
  std::int64_t cpu_milli;
  std::int64_t memory_milli;
};

// Must stay identical to cozy-lib _resourcepresets.tpl; a test checks each cell.
constexpr std::array<PresetEntry, 47> kPresets{{
    {"t1.nano", 250, 128 * kMi},
    {"t1.micro", 500, 256 * kMi},
    {"t1.small", 1000, 512 * kMi},
    {"t1.medium", 2000, 1 * kGi},
    {"t1.large", 4000, 2 * kGi},
    {"t1.xlarge", 8000, 4 * kGi},
    {"t1.2xlarge", 16000, 8 * kGi},
    {"t1.4xlarge", 32000, 16 * kGi},
    {"c1.nano", 250, 256 * kMi},
    {"c1.micro", 500, 512 * kMi},
    {"c1.small", 1000, 1 * kGi},
    {"c1.medium", 2000, 2 * kGi},
    {"c1.large", 4000, 4 * kGi},
    {"c1.xlarge", 8000, 8 * kGi},
    {"c1.2xlarge", 16000, 16 * kGi},
    {"c1.4xlarge", 32000, 32 * kGi},
    {"s1.nano", 250, 512 * kMi},
    {"s1.micro", 500, 1 * kGi},
    {"s1.small", 1000, 2 * kGi},
    {"s1.medium", 2000, 4 * kGi},
    {"s1.large", 4000, 8 * kGi},
    {"s1.xlarge", 8000, 16 * kGi},
    {"s1.2xlarge", 16000, 32 * kGi},
    {"s1.4xlarge", 32000, 64 * kGi},
    {"u1.nano", 250, 1 * kGi},
    {"u1.micro", 500, 2 * kGi},
    {"u1.small", 1000, 4 * kGi},
    {"u1.medium", 2000, 8 * kGi},
    {"u1.large", 4000, 16 * kGi},
    {"u1.xlarge", 8000, 32 * kGi},
    {"u1.2xlarge", 16000, 64 * kGi},
    {"u1.4xlarge", 32000, 128 * kGi},
    {"m1.nano", 250, 2 * kGi},
    {"m1.micro", 500, 4 * kGi},
    {"m1.small", 1000, 8 * kGi},
    {"m1.medium", 2000, 16 * kGi},
    {"m1.large", 4000, 32 * kGi},
    {"m1.xlarge", 8000, 64 * kGi},
    {"m1.2xlarge", 16000, 128 * kGi},
    {"m1.4xlarge", 32000, 256 * kGi},
    // Legacy aliases: note medium..2xlarge have half the CPU of the t1 series.
    {"nano", 250, 128 * kMi},
    {"micro", 500, 256 * kMi},
    {"small", 1000, 512 * kMi},
    {"medium", 1000, 1 * kGi},
    {"large", 2000, 2 * kGi},
    {"xlarge", 4000, 4 * kGi},
    {"2xlarge", 8000, 8 * kGi},
}};

struct QuotaPair {
  const char* hard;
  const char* used;
  bool cpu;
};

constexpr std::array<QuotaPair, 6> kPairs{{
    {"requests.cpu", "requests.cpu", true},
    {"cpu", "cpu", true},
    {"limits.cpu", "limits.cpu", true},
    {"requests.memory", "requests.memory", false},
    {"memory", "memory", false},
    {"limits.memory", "limits.memory", false},
}};

std::optional<std::int64_t> quantity_milli(const rapidjson::Value* v) {
  if (v == nullptr || !v->IsString()) return std::nullopt;
  auto q = model::parse_quantity(std::string_view(v->GetString(), v->GetStringLength()));
  if (!q) return std::nullopt;
  return q->milli;
}

const rapidjson::Value* member(const rapidjson::Value* object, const char* name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  auto it = object->FindMember(name);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

}  // namespace

std::optional<PodResources> preset_resources(std::string_view preset) {
  for (const auto& p : kPresets)
    if (p.name == preset) return PodResources{p.cpu_milli, p.memory_milli};
  return std::nullopt;
}

std::optional<PodResources> per_pod_resources(const std::optional<std::string>& cpu,
                                              const std::optional<std::string>& memory, std::string_view preset) {
  if (cpu && memory && !cpu->empty() && !memory->empty()) {
    auto c = model::parse_quantity(*cpu);
    auto m = model::parse_quantity(*memory);
    if (c && m) return PodResources{c->milli, m->milli};
  }
  if (preset.empty()) return std::nullopt;
  return preset_resources(preset);
}

std::optional<std::int32_t> max_replicas_within_quota(const std::vector<const rapidjson::Value*>& quotas,
                                                      std::int32_t current, const PodResources& per_pod) {
  std::optional<std::int64_t> ceiling;
  for (const auto& pair : kPairs) {
    const std::int64_t pod = pair.cpu ? per_pod.cpu_milli : per_pod.memory_milli;
    if (pod <= 0) continue;
    for (const rapidjson::Value* quota : quotas) {
      const rapidjson::Value* status = member(quota, "status");
      const auto hard = quantity_milli(member(member(status, "hard"), pair.hard));
      if (!hard) continue;
      const std::int64_t used = quantity_milli(member(member(status, "used"), pair.used)).value_or(0);
      // Saturating: a huge quota must not overflow into a negative headroom.
      std::int64_t headroom = 0;
      if (*hard > used) {
        headroom = used < 0 && *hard > std::numeric_limits<std::int64_t>::max() + used
                       ? std::numeric_limits<std::int64_t>::max()
                       : *hard - used;
      }
      const std::int64_t additional = headroom / pod;
      const std::int64_t candidate = additional > std::numeric_limits<std::int32_t>::max() - std::int64_t{current}
                                         ? std::numeric_limits<std::int32_t>::max()
                                         : current + additional;
      ceiling = ceiling ? std::min(*ceiling, candidate) : candidate;
    }
  }
  if (!ceiling) return std::nullopt;
  return static_cast<std::int32_t>(*ceiling);
}

}  // namespace dha::pipeline
