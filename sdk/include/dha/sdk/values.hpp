#pragma once

// Reading an Application's `spec` values the way BEHAVIOUR §4 fixes it, so that every engine
// adapter (and the host) agrees: integers are JSON numbers truncated to int32 (saturating, not
// wrapping); a missing key or a non-number gives the default; booleans count only when the value
// really is a bool ("true" the string is not).

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

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
// a number, truncated and saturated to int32; nullopt when absent or not a number (Part A 11:
// a missing count is "not scalable", never 0).
inline std::optional<int32_t> read_replicas(const json::Value& object,
                                            std::string_view replicas_path) noexcept {
  const json::Value* v = json::find_path(object, replicas_path);
  if (v == nullptr || !v->IsNumber()) return std::nullopt;
  return saturate_int32(json::truncate_to_int64(*v));
}

}  // namespace dha::sdk::values
