#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

// Replica arithmetic saturates instead of overflowing (docs/behaviour.md#formula-saturation).
namespace dha::decide {

inline std::int32_t saturating_add(std::int32_t a, std::int32_t b) {
  const std::int64_t s = static_cast<std::int64_t>(a) + b;
  if (s > std::numeric_limits<std::int32_t>::max()) return std::numeric_limits<std::int32_t>::max();
  if (s < std::numeric_limits<std::int32_t>::min()) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(s);
}

// A finite or infinite double to int32, clamped to the range (NaN is the caller's to reject).
inline std::int32_t saturate_to_int32(double v) {
  if (!(v < 2147483647.0)) return std::numeric_limits<std::int32_t>::max();
  if (v <= -2147483648.0) return std::numeric_limits<std::int32_t>::min();
  return static_cast<std::int32_t>(v);
}

inline std::int64_t saturating_add64(std::int64_t a, std::int64_t b) {
  if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) return std::numeric_limits<std::int64_t>::max();
  if (b < 0 && a < std::numeric_limits<std::int64_t>::min() - b) return std::numeric_limits<std::int64_t>::min();
  return a + b;
}

}  // namespace dha::decide
