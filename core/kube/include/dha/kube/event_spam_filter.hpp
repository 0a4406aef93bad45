#pragma once
// Per-object event budget, as client-go's EventSourceObjectSpamFilter keeps one: a token bucket
// per involved object (its kind, namespace, name and uid), `burst` tokens, refilled at one per
// `refill`. An event that finds the bucket empty is dropped, whatever its reason or message: a
// tenant who rewrites a DHA's spec 150 times in a few seconds gets at most the burst of events
// (and of event API requests), then one per interval, instead of one per write. Buckets of
// objects not heard of for a while are dropped oldest first beyond `max_tracked`. Not
// thread-safe (EventRecorder calls it under its lock).

#include <cstddef>
#include <map>
#include <string>

#include "dha/kube/clock.hpp"

namespace dha::kube {

struct EventSpamFilterOptions {
  // client-go's defaults: 25 events, then one per 5 minutes.
  int burst = 25;
  Duration refill = std::chrono::minutes(5);
  std::size_t max_tracked = 4096;
};

class EventSpamFilter {
 public:
  explicit EventSpamFilter(const Clock& clock, EventSpamFilterOptions options = {});

  // Takes a token for `object` (a key naming the involved object); false when none is left.
  bool allow(const std::string& object);
  std::size_t dropped() const { return dropped_; }

 private:
  struct Bucket {
    double tokens = 0;
    TimePoint last;
  };
  const Clock& clock_;
  const EventSpamFilterOptions options_;
  std::map<std::string, Bucket> buckets_;
  std::size_t dropped_ = 0;
};

}  // namespace dha::kube
