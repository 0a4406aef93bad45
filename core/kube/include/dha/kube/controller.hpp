#pragma once
// A controller: informers feed keys into a WorkQueue; worker threads pop a key, call the
// reconciler, and apply_result() (reconcile.hpp) turns the result into the queue action.
//
//   Controller c("dha", [&](const std::string& key) -> ReconcileResult { ... });
//   c.watch(dha_informer);                                   // DHA changes → its own key
//   c.watch_secondary(target_informer, [&](const rapidjson::Value& obj) {
//     return owners.owners_of(secondary_key(target_informer.resource(), obj));  // target → DHA keys
//   });
//   c.start(); ... c.stop();
//
// Threading: `workers` threads call the reconciler; the queue guarantees a key is reconciled
// by one worker at a time. Handlers registered by watch*() run on informer threads and only
// enqueue. stop() shuts the queue and joins the workers (an in-flight reconcile finishes first).
// A reconciler that throws is an Error{what()} (retried with backoff).

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dha/kube/informer.hpp"
#include "dha/kube/reconcile.hpp"
#include "dha/kube/work_queue.hpp"

namespace dha::kube {

using Reconciler = std::function<ReconcileResult(const std::string& key)>;
using KeyMapper = std::function<std::vector<std::string>(const rapidjson::Value& obj)>;

struct ControllerOptions {
  int workers = 1;
  BackoffPolicy backoff{};
  const Clock* clock = nullptr;  // null = SystemClock
  // Where the queue's workqueue_* and the controller_runtime_reconcile_* series go, labelled
  // with the controller's name; null = not measured.
  telemetry::Registry* metrics = nullptr;
};

class Controller {
 public:
  Controller(std::string name, Reconciler reconciler, ControllerOptions options = {});
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Every add/update/delete of `informer`'s objects enqueues that object's key.
  void watch(Informer& informer);
  // Every change of a secondary object enqueues the keys `map` returns (its owners).
  void watch_secondary(Informer& informer, KeyMapper map);

  void start();
  void stop();
  // Shuts the queue (queued keys are dropped, no reconcile starts any more) and waits at most
  // `drain` for the reconciles in flight. False when some are still running: their threads are
  // left behind (a reconcile blocked in a plugin call cannot be interrupted), so the controller
  // must not be destroyed; the caller ends the process instead.
  bool stop_within(Duration drain);
  // Reconciles running right now.
  int in_flight() const { return active_workers_.load(); }
  // One step without threads (tests): takes a ready key, reconciles, applies the result.
  // Returns the action, or nullopt when no key was ready.
  std::optional<QueueAction> process_one();

  WorkQueue& queue() { return queue_; }
  const std::string& name() const { return name_; }

 private:
  QueueAction reconcile_key(const std::string& key);
  void worker();

  std::string name_;
  Reconciler reconciler_;
  ControllerOptions options_;
  WorkQueue queue_;
  std::vector<std::thread> workers_;
  std::atomic<bool> started_{false};
  std::unique_ptr<telemetry::ReconcileMetrics> reconcile_metrics_;
  std::atomic<int> active_workers_{0};
  std::mutex exit_mu_;
  std::condition_variable exit_cv_;
  std::size_t exited_workers_ = 0;
};

// Which primary objects reference which secondary objects (a DHA → its target and health
// object). The operator calls set() on every reconcile with what the DHA references now, and
// remove_owner() when the DHA is gone; watch_secondary() mappers call owners_of(). Thread-safe.
class OwnerIndex {
 public:
  void set(const std::string& owner, std::vector<std::string> secondaries);
  void remove_owner(const std::string& owner);
  std::vector<std::string> owners_of(const std::string& secondary) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> by_owner_;
  std::map<std::string, std::set<std::string>> by_secondary_;
};

// The OwnerIndex key of a secondary object: "<plural>.<group>/<ns>/<name>" (group may be empty).
std::string secondary_key(const ResourceRef& resource, const std::string& namespace_, const std::string& name);
std::string secondary_key(const ResourceRef& resource, const rapidjson::Value& obj);

}  // namespace dha::kube
