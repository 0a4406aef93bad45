#include "dha/kube/rate_limiter.hpp"

#include <algorithm>
#include <thread>

namespace dha::kube {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.now()) {}

Duration TokenBucket::reserve() {
  if (qps_ <= 0) return Duration::zero();
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  tokens_ -= 1.0;
  if (tokens_ >= 0) return Duration::zero();
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

void TokenBucket::acquire() {
  const Duration wait = reserve();
  if (wait > Duration::zero()) std::this_thread::sleep_for(wait);
}

}  // namespace dha::kube
