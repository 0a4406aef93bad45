#pragma once

// Reading an Application's `spec` values one way, so that every engine adapter (and the host)
// agrees: integers are JSON numbers truncated to int32 (saturating, not wrapping); a missing key
// or a non-number gives the default; booleans count only when the value really is a bool
// ("true" the string is not).

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"

namespace dha::sdk::values {

inline int32_t saturate_int32(int64_t v) noexcept {
  if (v > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (v < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

// `path` is a dot path inside `spec`, e.g. "quorum.maxSyncReplicas".
inline int32_t read_int(const json::Value& spec, std::string_view path, int32_t fallback) noexcept {
  const json::Value* v = json::find_path(spec, path);
  if (v == nullptr || !v->IsNumber()) return fallback;
  return saturate_int32(json::truncate_to_int64(*v));
}

inline bool read_bool(const json::Value& spec, std::string_view path, bool fallback) noexcept {
  const json::Value* v = json::find_path(spec, path);
  if (v == nullptr || !v->IsBool()) return fallback;
  return v->GetBool();
}

inline std::string_view read_string(const json::Value& spec, std::string_view path,
                                    std::string_view fallback) noexcept {
  const json::Value* v = json::find_path(spec, path);
  if (v == nullptr || !v->IsString()) return fallback;
  return json::view(*v);
}

// The replica count at `replicas_path` (a dot path from the object root, "spec.replicas"):
// a number, truncated and saturated to int32; nullopt when absent or not a number (a missing
// count is "not scalable", never 0).
inline std::optional<int32_t> read_replicas(const json::Value& object, std::string_view replicas_path) noexcept {
  const json::Value* v = json::find_path(object, replicas_path);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  return saturate_int32(json::truncate_to_int64(*v));
}

// The per-pod request an Application states explicitly, for the tenant quota ceiling: both
// values non-empty strings. Anything else (a YAML number such as `cpu: 2`, a missing key) is nullopt, and the
// host falls back to the resources preset. Whether they parse as quantities is the host's call.
inline std::optional<Resources> read_resources(const json::Value& spec, std::string_view cpu_path = "resources.cpu",
                                               std::string_view memory_path = "resources.memory") {
  const json::Value* cpu = json::find_path(spec, cpu_path);
  const json::Value* memory = json::find_path(spec, memory_path);
  if (cpu == nullptr || memory == nullptr || !cpu->IsString() || !memory->IsString()) return std::nullopt;
  if (cpu->GetStringLength() == 0 || memory->GetStringLength() == 0) return std::nullopt;
  return Resources{std::string(json::view(*cpu)), std::string(json::view(*memory))};
}

}  // namespace dha::sdk::values
