#pragma once

// The three Prometheus metric kinds as thread-safe value cells. A cell is one series (one label
// set) of a family; it is shared with the family through shared_ptr, so deleting a series from
// the family never invalidates a cell a caller still holds (its later updates are just not
// exported any more).

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace dha::telemetry {

// Monotonic counter. Negative or non-finite increments are ignored: a counter that goes down
// breaks every rate() over it.
class Counter {
 public:
  void inc(double amount = 1.0) noexcept;
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void set(double value) noexcept { value_.store(value, std::memory_order_relaxed); }
  void add(double amount) noexcept;
  double value() const noexcept { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

// Fixed-bucket histogram. Buckets are the upper bounds (strictly increasing, finite); the +Inf
// bucket is implicit. observe() is lock-free.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);

  void observe(double value) noexcept;

  struct Snapshot {
    std::vector<double> upper_bounds;       // without +Inf
    std::vector<std::uint64_t> cumulative;  // one per bound, then the +Inf bucket (== count)
    double sum = 0.0;
    std::uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  std::vector<double> upper_bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> bucket_counts_;  // non-cumulative, +1 for +Inf
  std::atomic<double> sum_{0.0};
  std::atomic<std::uint64_t> count_{0};
};

// Bucket layouts.
std::vector<double> default_latency_buckets();  // seconds, 0.5 ms .. 10 s
std::vector<double> exponential_buckets(double start, double factor, int count);

}  // namespace dha::telemetry
