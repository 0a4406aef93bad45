#pragma once
// Time source for everything in dha::kube that makes time-based decisions (work queue delays,
// backoff, lease expiry, rate limiting). Logic takes a Clock& so tests drive time by hand;
// only SystemClock reads the real clock.

#include <chrono>
#include <mutex>

namespace dha::kube {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time: used for every interval and deadline.
  virtual TimePoint now() const = 0;
  // Wall-clock time: used only for timestamps written into objects (Lease renewTime, Events).
  virtual std::chrono::system_clock::time_point wall_now() const = 0;
};

// The real clocks. Thread-safe, stateless.
class SystemClock final : public Clock {
 public:
  TimePoint now() const override { return std::chrono::steady_clock::now(); }
  std::chrono::system_clock::time_point wall_now() const override { return std::chrono::system_clock::now(); }
  // A process-wide instance for callers that do not inject one.
  static SystemClock& instance() {
    static SystemClock clock;
    return clock;
  }
};

// A clock that only moves when told to. Thread-safe: tests advance it from one thread while
// the code under test reads it from another.
class FakeClock final : public Clock {
 public:
  FakeClock()
      : mono_(TimePoint{} + std::chrono::hours(1)),
        wall_(std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 56)) {}
  TimePoint now() const override {
    std::lock_guard lock(mu_);
    return mono_;
  }
  std::chrono::system_clock::time_point wall_now() const override {
    std::lock_guard lock(mu_);
    return wall_;
  }
  void advance(Duration d) {
    std::lock_guard lock(mu_);
    mono_ += d;
    wall_ += std::chrono::duration_cast<std::chrono::system_clock::duration>(d);
  }

 private:
  mutable std::mutex mu_;
  TimePoint mono_;
  std::chrono::system_clock::time_point wall_;
};

}  // namespace dha::kube
