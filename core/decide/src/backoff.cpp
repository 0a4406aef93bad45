#include "dha/decide/backoff.hpp"

#include <algorithm>
#include <limits>

namespace dha::decide {

std::int64_t backoff_seconds(std::int64_t base_seconds, std::int32_t count) {
  const std::int64_t base = std::clamp<std::int64_t>(base_seconds, 0, std::numeric_limits<std::int64_t>::max() / 8);
  const int doublings = std::min(std::max(count, 1) - 1, 3);
  return base << doublings;
}

}  // namespace dha::decide
