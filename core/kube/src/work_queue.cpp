#include "dha/kube/work_queue.hpp"

#include <algorithm>
#include <utility>

namespace dha::kube {

Duration BackoffPolicy::delay_for(int failures) const {
  if (failures <= 0) return Duration::zero();
  Duration d = base;
  for (int i = 1; i < failures; ++i) {
    if (d >= cap / 2) return cap;  // doubling again would pass the cap (or overflow)
    d *= 2;
  }
  return std::min(d, cap);
}

namespace {
double seconds_between(TimePoint from, TimePoint to) { return std::chrono::duration<double>(to - from).count(); }
}  // namespace

WorkQueue::WorkQueue(const Clock& clock, BackoffPolicy backoff) : clock_(clock), backoff_(backoff) {}

WorkQueue::~WorkQueue() {
  if (metrics_) metrics_->stop_reading_in_flight();
}

void WorkQueue::set_metrics(std::shared_ptr<telemetry::WorkQueueMetrics> metrics) {
  std::shared_ptr<telemetry::WorkQueueMetrics> old;
  {
    std::lock_guard lock(mu_);
    old = std::exchange(metrics_, metrics);
  }
  // Outside mu_: a scrape holds the registry's lock while it reads this queue under mu_.
  if (old) old->stop_reading_in_flight();
  if (metrics) metrics->read_in_flight([this] { return in_flight(); });
}

telemetry::WorkQueueMetrics::InFlight WorkQueue::in_flight() const {
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  telemetry::WorkQueueMetrics::InFlight result;
  for (const auto& [key, started] : started_at_) {
    const double held = seconds_between(started, now);
    result.unfinished_seconds += held;
    result.longest_seconds = std::max(result.longest_seconds, held);
  }
  return result;
}

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already queued, or already marked while processing
  // As client-go counts: an add is a key that was not waiting yet; its queue time starts now
  // even when it is being processed and will only be queued by done().
  if (metrics_) {
    metrics_->added();
    queued_at_.emplace(key, clock_.now());
  }
  if (processing_.count(key) != 0) return;  // done() queues it
  push_ready_locked(key);
  cv_.notify_one();
}

std::string WorkQueue::group_of(const std::string& key) {
  const auto slash = key.find('/');
  return slash == std::string::npos ? std::string() : key.substr(0, slash);
}

void WorkQueue::push_ready_locked(const std::string& key) {
  const std::string group = group_of(key);
  auto& keys = ready_by_group_[group];
  if (keys.empty()) group_turns_.push_back(group);
  keys.push_back(key);
  ++ready_size_;
  if (metrics_) metrics_->set_depth(ready_size_);
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mu_);
  add_locked(key);
}

void WorkQueue::add_after(const std::string& key, Duration delay) {
  std::lock_guard lock(mu_);
  if (shutting_down_) return;
  if (delay <= Duration::zero()) {
    add_locked(key);
    return;
  }
  const TimePoint due = clock_.now() + delay;
  auto it = due_by_key_.find(key);
  if (it != due_by_key_.end()) {
    if (it->second <= due) return;  // an earlier schedule already exists
    due_order_.erase({it->second, key});
    it->second = due;
  } else {
    due_by_key_.emplace(key, due);
  }
  due_order_.emplace(due, key);
  cv_.notify_all();  // a waiter may need to wake earlier than it planned
}

void WorkQueue::add_rate_limited(const std::string& key) {
  int n;
  {
    std::lock_guard lock(mu_);
    n = ++failures_[key];
    if (metrics_) metrics_->retried();
  }
  add_after(key, backoff_.delay_for(n));
}

void WorkQueue::forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

int WorkQueue::failures(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

void WorkQueue::promote_due_locked(TimePoint now) {
  while (!due_order_.empty() && due_order_.begin()->first <= now) {
    const std::string key = due_order_.begin()->second;
    due_order_.erase(due_order_.begin());
    due_by_key_.erase(key);
    add_locked(key);
  }
}

std::optional<std::string> WorkQueue::pop_locked() {
  if (group_turns_.empty()) return std::nullopt;
  // The namespace with keys waiting and the fewest being processed, the earliest in turn among
  // equals: one namespace's thousand keys queue behind each other, not in front of everyone
  // else's, and a namespace holding every worker yields the next free one to any other.
  const auto in_flight = [&](const std::string& g) {
    const auto found = processing_by_group_.find(g);
    return found == processing_by_group_.end() ? 0 : found->second;
  };
  auto turn = group_turns_.begin();
  for (auto candidate = group_turns_.begin(); candidate != group_turns_.end(); ++candidate)
    if (in_flight(*candidate) < in_flight(*turn)) turn = candidate;
  const std::string group = std::move(*turn);
  group_turns_.erase(turn);
  ++processing_by_group_[group];
  auto it = ready_by_group_.find(group);
  std::string key = std::move(it->second.front());
  it->second.pop_front();
  if (it->second.empty())
    ready_by_group_.erase(it);
  else
    group_turns_.push_back(group);
  --ready_size_;
  processing_.insert(key);
  dirty_.erase(key);
  if (metrics_) {
    const TimePoint now = clock_.now();
    metrics_->set_depth(ready_size_);
    if (auto it = queued_at_.find(key); it != queued_at_.end()) {
      metrics_->waited(seconds_between(it->second, now));
      queued_at_.erase(it);
    }
    started_at_[key] = now;
  }
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (shutting_down_) return std::nullopt;
    const TimePoint now = clock_.now();
    promote_due_locked(now);
    if (auto key = pop_locked()) return key;
    Duration wait = kPollInterval;
    if (!due_order_.empty()) wait = std::min(wait, due_order_.begin()->first - now);
    cv_.wait_for(lock, wait);
  }
}

std::optional<std::string> WorkQueue::try_get() {
  std::lock_guard lock(mu_);
  if (shutting_down_) return std::nullopt;
  promote_due_locked(clock_.now());
  return pop_locked();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mu_);
  if (processing_.erase(key) != 0) {
    const auto g = processing_by_group_.find(group_of(key));
    if (g != processing_by_group_.end() && --g->second <= 0) processing_by_group_.erase(g);
  }
  if (metrics_) {
    if (auto it = started_at_.find(key); it != started_at_.end()) {
      metrics_->worked(seconds_between(it->second, clock_.now()));
      started_at_.erase(it);
    }
  }
  if (dirty_.count(key) != 0 && !shutting_down_) {
    push_ready_locked(key);
    cv_.notify_one();
  }
}

void WorkQueue::shut_down() {
  std::lock_guard lock(mu_);
  shutting_down_ = true;
  ready_by_group_.clear();
  group_turns_.clear();
  ready_size_ = 0;
  dirty_.clear();
  due_by_key_.clear();
  due_order_.clear();
  queued_at_.clear();
  if (metrics_) metrics_->set_depth(0);
  cv_.notify_all();
}

bool WorkQueue::shutting_down() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

void WorkQueue::wake() {
  std::lock_guard lock(mu_);
  cv_.notify_all();
}

std::size_t WorkQueue::ready_count() const {
  std::lock_guard lock(mu_);
  return ready_size_;
}

std::size_t WorkQueue::delayed_count() const {
  std::lock_guard lock(mu_);
  return due_by_key_.size();
}

bool WorkQueue::is_processing(const std::string& key) const {
  std::lock_guard lock(mu_);
  return processing_.count(key) != 0;
}

}  // namespace dha::kube
