#pragma once

#include <cstdint>

namespace dha::decide {

// How long a size that did not converge is held off (docs/behaviour.md#guardrail-backoff): base
// doubled min(count-1, 3) times, so 1x, 2x, 4x, then 8x; count < 1 counts as 1. With the
// default 900 s: 900, 1800, 3600, 7200, 7200, ...
std::int64_t backoff_seconds(std::int64_t base_seconds, std::int32_t count);

}  // namespace dha::decide
