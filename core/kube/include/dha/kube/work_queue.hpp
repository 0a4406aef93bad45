#pragma once
// The controller work queue (client-go's rate-limited delaying queue, condensed):
// - a key waiting in the queue is held once however often it is added (dedupe);
// - a key being processed is never handed to a second worker; adding it meanwhile marks it
//   dirty and it is queued again when done() is called;
// - add_after() schedules a key for later (the earliest of several schedules wins);
// - add_rate_limited() schedules with per-key exponential backoff
//   (base * 2^(failures-1), capped); forget() resets a key's failure count;
// - shut_down() wakes every waiting get(), which then returns nullopt; queued keys are dropped;
// - fair between namespaces: keys "ns/name" wait in one FIFO per namespace, and get() serves
//   the namespace with the fewest keys being processed (in turn among equals), so a tenant who
//   queues a thousand keys (a burst of spec writes over many DHAs) and holds every worker gets
//   the next free worker only when no other tenant has a key waiting.
// Time comes from the injected Clock. With a FakeClock, blocked get() calls notice advanced
// time within kPollInterval (or at once after wake()). Thread-safe.

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "dha/kube/clock.hpp"
#include "dha/telemetry/controller_metrics.hpp"

namespace dha::kube {

struct BackoffPolicy {
  Duration base = std::chrono::milliseconds(5);
  Duration cap = std::chrono::seconds(1000);
  // base * 2^(failures-1), capped; failures >= 1. Saturates instead of overflowing.
  Duration delay_for(int failures) const;
};

class WorkQueue {
 public:
  static constexpr auto kPollInterval = std::chrono::milliseconds(100);

  explicit WorkQueue(const Clock& clock = SystemClock::instance(), BackoffPolicy backoff = {});
  // Stops the metrics reading this queue before its members go, so a scrape racing the
  // destruction never reads a dead queue.
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Reports adds, depth, time queued, time worked, retries and the work in progress
  // (client-go's workqueue_* families). Call before the queue is used.
  void set_metrics(std::shared_ptr<telemetry::WorkQueueMetrics> metrics);
  // Keys being processed now: seconds held in total and the longest (zero without metrics,
  // which is when start times are kept).
  telemetry::WorkQueueMetrics::InFlight in_flight() const;

  void add(const std::string& key);
  void add_after(const std::string& key, Duration delay);
  void add_rate_limited(const std::string& key);
  void forget(const std::string& key);
  int failures(const std::string& key) const;

  // Blocks until a key is ready (or shut down → nullopt). The caller must call done(key).
  std::optional<std::string> get();
  // Non-blocking get(): nullopt when nothing is ready now.
  std::optional<std::string> try_get();
  void done(const std::string& key);

  void shut_down();
  bool shutting_down() const;
  // Re-checks the clock in blocked get() calls (after advancing a FakeClock).
  void wake();

  std::size_t ready_count() const;    // keys ready to be handed out
  std::size_t delayed_count() const;  // keys scheduled for later
  bool is_processing(const std::string& key) const;

 private:
  static std::string group_of(const std::string& key);  // the namespace of "ns/name"
  void push_ready_locked(const std::string& key);
  void add_locked(const std::string& key);
  void promote_due_locked(TimePoint now);
  std::optional<std::string> pop_locked();

  const Clock& clock_;
  const BackoffPolicy backoff_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::deque<std::string>> ready_by_group_;  // FIFO per namespace
  std::deque<std::string> group_turns_;                            // namespaces with keys ready, in turn order
  std::size_t ready_size_ = 0;
  std::unordered_map<std::string, int> processing_by_group_;  // keys being processed, per namespace
  std::unordered_set<std::string> dirty_;                     // queued or re-added while processing
  std::unordered_set<std::string> processing_;
  std::map<std::string, TimePoint> due_by_key_;  // delayed keys
  std::set<std::pair<TimePoint, std::string>> due_order_;
  std::unordered_map<std::string, int> failures_;
  bool shutting_down_ = false;
  std::shared_ptr<telemetry::WorkQueueMetrics> metrics_;
  std::unordered_map<std::string, TimePoint> queued_at_;   // only with metrics_
  std::unordered_map<std::string, TimePoint> started_at_;  // only with metrics_
};

}  // namespace dha::kube
