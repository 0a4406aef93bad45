#include "dha/kube/event_spam_filter.hpp"

#include <algorithm>

namespace dha::kube {

EventSpamFilter::EventSpamFilter(const Clock& clock, EventSpamFilterOptions options)
    : clock_(clock), options_(options) {}

bool EventSpamFilter::allow(const std::string& object) {
  const TimePoint now = clock_.now();
  auto it = buckets_.find(object);
  if (it == buckets_.end()) {
    if (buckets_.size() >= options_.max_tracked) {
      // The bucket refilled longest ago belongs to the object heard of least recently.
      buckets_.erase(std::min_element(buckets_.begin(), buckets_.end(),
                                      [](const auto& a, const auto& b) { return a.second.last < b.second.last; }));
    }
    it = buckets_.emplace(object, Bucket{static_cast<double>(options_.burst), now}).first;
  }
  Bucket& b = it->second;
  if (options_.refill.count() > 0) {
    const double earned = std::chrono::duration<double>(now - b.last) / std::chrono::duration<double>(options_.refill);
    b.tokens = std::min(static_cast<double>(options_.burst), b.tokens + earned);
  }
  b.last = now;
  if (b.tokens < 1.0) {
    ++dropped_;
    return false;
  }
  b.tokens -= 1.0;
  return true;
}

}  // namespace dha::kube
