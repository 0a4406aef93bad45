#pragma once
// How many objects to ask for in the next page of a list, when pages are bounded by bytes as
// well as by count. A page is held whole as received (its text, then its parsed document)
// until its items are handed over, so its weight is what a list costs in memory at its peak;
// objects a tenant pads (annotations, finalizers) weigh a thousand times a plain one. The first
// page asks for one object, since nothing is known of their weight yet and one object is the
// only count that cannot overshoot; the count per page then follows the weight of the objects
// seen so far, at most doubling: plain objects come `max_count` to a page after a few pages,
// padded ones few enough to stay near the budget.

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace dha::kube {

class PageSizer {
 public:
  // max_count: the most objects a page may hold (ListOptions::limit). byte_budget 0: pages are
  // bounded by count alone and every page asks for max_count.
  PageSizer(std::int64_t max_count, std::size_t byte_budget)
      : max_(std::max<std::int64_t>(max_count, 1)), budget_(byte_budget), next_(byte_budget == 0 ? max_ : 1) {}

  std::int64_t next() const { return next_; }

  // A page of `count` objects weighed `bytes` as received. The next count is what the budget
  // holds at the average weight seen in that page, at most twice this one's (a page of small
  // objects says little about the next), at least 1.
  void observe(std::size_t count, std::size_t bytes) {
    if (budget_ == 0 || count == 0) return;
    const std::size_t per_object = std::max<std::size_t>(bytes / count, 1);
    const auto fits = static_cast<std::int64_t>(std::min<std::size_t>(budget_ / per_object, INT64_MAX / 4));
    next_ = std::clamp<std::int64_t>(std::min(fits, next_ * 2), 1, max_);
  }

 private:
  std::int64_t max_;
  std::size_t budget_;
  std::int64_t next_;
};

}  // namespace dha::kube
