#pragma once
// Client-side request limit: a token bucket of `burst` tokens refilled at `qps` per second
// (client-go's default limiter; our defaults are QPS 50, burst 100). Thread-safe.
// Reservations may take the bucket below zero, so concurrent callers queue fairly in the
// order they reserved instead of racing for the next token.

#include <mutex>

#include "dha/kube/clock.hpp"

namespace dha::kube {

class TokenBucket {
 public:
  // qps <= 0 disables limiting (reserve() always returns zero).
  TokenBucket(double qps, int burst, const Clock& clock = SystemClock::instance());

  // Takes one token and returns how long the caller must wait before sending.
  Duration reserve();
  // reserve() and then sleep for the returned time.
  void acquire();

 private:
  const double qps_;
  const double burst_;
  const Clock& clock_;
  std::mutex mu_;
  double tokens_;
  TimePoint last_;
};

}  // namespace dha::kube
