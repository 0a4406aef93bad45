#include "dha/kube/controller.hpp"

#include <spdlog/spdlog.h>

namespace dha::kube {

Controller::Controller(std::string name, Reconciler reconciler, ControllerOptions options)
    : name_(std::move(name)),
      reconciler_(std::move(reconciler)),
      options_(options),
      queue_(options.clock != nullptr ? *options.clock : SystemClock::instance(), options.backoff) {
  if (options_.workers < 1) throw std::invalid_argument("controller: workers must be at least 1");
  if (options_.metrics != nullptr) {
    queue_.set_metrics(std::make_shared<telemetry::WorkQueueMetrics>(*options_.metrics, name_));
    reconcile_metrics_ = std::make_unique<telemetry::ReconcileMetrics>(*options_.metrics, name_, options_.workers);
  }
}

Controller::~Controller() { stop(); }

void Controller::watch(Informer& informer) {
  auto enqueue = [this](const ObjectPtr& obj) { queue_.add(key_of(*obj)); };
  informer.add_handler({enqueue, [enqueue](const ObjectPtr&, const ObjectPtr& now) { enqueue(now); }, enqueue});
}

void Controller::watch_secondary(Informer& informer, KeyMapper map) {
  auto enqueue = [this, map = std::move(map)](const ObjectPtr& obj) {
    for (const auto& key : map(*obj)) queue_.add(key);
  };
  informer.add_handler({enqueue, [enqueue](const ObjectPtr&, const ObjectPtr& now) { enqueue(now); }, enqueue});
}

QueueAction Controller::reconcile_key(const std::string& key) {
  ReconcileResult result;
  const auto started = std::chrono::steady_clock::now();
  const int active = ++active_workers_;
  if (reconcile_metrics_) reconcile_metrics_->set_active_workers(active);
  try {
    result = reconciler_(key);
  } catch (const std::exception& e) {
    result = Error{e.what()};
  } catch (...) {
    result = Error{"unknown exception"};
  }
  if (const auto* err = std::get_if<Error>(&result)) {
    spdlog::warn("controller {}: reconcile {}: {}{}", name_, key, err->message, err->terminal ? " (terminal)" : "");
  }
  if (reconcile_metrics_) {
    using Result = telemetry::ReconcileMetrics::Result;
    const Result outcome = std::holds_alternative<Error>(result)          ? Result::error
                           : std::holds_alternative<RequeueAfter>(result) ? Result::requeue_after
                                                                          : Result::success;
    reconcile_metrics_->finished(outcome,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  }
  const int still_active = --active_workers_;
  if (reconcile_metrics_) reconcile_metrics_->set_active_workers(still_active);
  const QueueAction action = apply_result(queue_, key, result);
  queue_.done(key);
  return action;
}

std::optional<QueueAction> Controller::process_one() {
  auto key = queue_.try_get();
  if (!key) return std::nullopt;
  return reconcile_key(*key);
}

void Controller::worker() {
  while (auto key = queue_.get()) reconcile_key(*key);
  {
    std::lock_guard lock(exit_mu_);
    ++exited_workers_;
  }
  exit_cv_.notify_all();
}

void Controller::start() {
  if (started_.exchange(true)) return;
  for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { worker(); });
}

bool Controller::stop_within(Duration drain) {
  queue_.shut_down();
  bool drained = false;
  {
    std::unique_lock lock(exit_mu_);
    drained = exit_cv_.wait_for(lock, drain, [&] { return exited_workers_ == workers_.size(); });
  }
  if (!drained) {
    for (auto& t : workers_) t.detach();
    workers_.clear();
    return false;
  }
  stop();
  return true;
}

void Controller::stop() {
  queue_.shut_down();
  for (auto& t : workers_)
    if (t.joinable()) t.join();
  workers_.clear();
}

void OwnerIndex::set(const std::string& owner, std::vector<std::string> secondaries) {
  std::lock_guard lock(mu_);
  auto& current = by_owner_[owner];
  for (const auto& s : current) {
    auto it = by_secondary_.find(s);
    if (it == by_secondary_.end()) continue;
    it->second.erase(owner);
    if (it->second.empty()) by_secondary_.erase(it);
  }
  current = std::set<std::string>(secondaries.begin(), secondaries.end());
  for (const auto& s : current) by_secondary_[s].insert(owner);
  if (current.empty()) by_owner_.erase(owner);
}

void OwnerIndex::remove_owner(const std::string& owner) { set(owner, {}); }

std::vector<std::string> OwnerIndex::owners_of(const std::string& secondary) const {
  std::lock_guard lock(mu_);
  auto it = by_secondary_.find(secondary);
  if (it == by_secondary_.end()) return {};
  return {it->second.begin(), it->second.end()};
}

std::string secondary_key(const ResourceRef& resource, const std::string& namespace_, const std::string& name) {
  std::string gr = resource.group.empty() ? resource.plural : resource.plural + "." + resource.group;
  return gr + "/" + namespace_ + "/" + name;
}

std::string secondary_key(const ResourceRef& resource, const rapidjson::Value& obj) {
  return secondary_key(resource, namespace_of(obj), name_of(obj));
}

}  // namespace dha::kube
