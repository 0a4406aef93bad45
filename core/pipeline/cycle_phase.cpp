#include "pipeline/cycle_phase.hpp"

#include <algorithm>

#include "dha/kube/shard_assignment.hpp"

namespace dha::pipeline {

std::chrono::milliseconds namespace_phase(std::string_view namespace_name, std::chrono::seconds period) {
  const auto period_ms = std::chrono::duration_cast<std::chrono::milliseconds>(period).count();
  if (period_ms <= 0) return std::chrono::milliseconds(0);
  // The same mixed hash the shards use: FNV-1a alone would give similar namespaces close phases.
  const auto h = kube::mix64(kube::fnv1a64(namespace_name));
  return std::chrono::milliseconds(static_cast<std::int64_t>(h % static_cast<std::uint64_t>(period_ms)));
}

kube::Duration until_next_phase(std::string_view namespace_name, std::chrono::system_clock::time_point wall_now,
                                std::chrono::seconds period) {
  using std::chrono::milliseconds;
  const auto period_ms = std::chrono::duration_cast<milliseconds>(period).count();
  if (period_ms <= 0) return kube::Duration::zero();
  const auto now_ms = std::chrono::duration_cast<milliseconds>(wall_now.time_since_epoch()).count();
  const auto phase_ms = namespace_phase(namespace_name, period).count();
  auto wait = ((phase_ms - now_ms) % period_ms + period_ms) % period_ms;  // [0, period)
  const std::int64_t slack = std::min<std::int64_t>(1000, period_ms / 10);
  if (wait <= slack) wait += period_ms;
  return std::chrono::duration_cast<kube::Duration>(milliseconds(wait));
}

}  // namespace dha::pipeline
