#pragma once
// An informer keeps a local, read-only cache of one resource (optionally one namespace and a
// label selector) in sync with the server, and tells handlers about every change:
//
//   list (paged) → cache replaced, handlers see adds/updates/deletes against the old cache
//   watch from the list's resourceVersion (bookmarks on) → cache updated per event
//   stream ends (server timeout, restart, network) → re-watch from the last resourceVersion
//   410 Gone / Expired → relist
//   other errors → retry with exponential backoff (base..cap), keeping the last resourceVersion
//
// Threading: start() runs one thread per informer. Handlers run on that thread, one event at a
// time, after the cache is updated (a handler that reads the cache sees the new state). Keep
// handlers short — enqueue a key, nothing more. Cache reads are thread-safe from anywhere and
// return shared immutable objects.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/label_selector.hpp"
#include "dha/kube/resource.hpp"

namespace dha::kube {

struct ResourceEventHandler {
  std::function<void(const ObjectPtr& obj)> on_add;
  std::function<void(const ObjectPtr& old_obj, const ObjectPtr& new_obj)> on_update;
  std::function<void(const ObjectPtr& last_known)> on_delete;
};

struct InformerOptions {
  std::string label_selector;
  std::string field_selector;
  int watch_timeout_seconds = 300;  // each watch request; the informer reconnects after it
  // A watch that receives nothing at all for this long is taken for lost and re-opened from the
  // last resourceVersion (0 = never). The informer asks for bookmarks, which kube-apiserver sends
  // about once a minute on a quiet watch, so a live watch is never silent that long; a dead path
  // (a relay that stopped forwarding) otherwise left the cache stale until watch_timeout_seconds
  // plus the client's margin, 5.5 minutes.
  Duration watch_idle_timeout = std::chrono::seconds(150);
  std::int64_t page_size = 500;
  // A relist's pages bounded by bytes as well (ListOptions::page_bytes); 0 = by count alone.
  std::size_t page_bytes = 0;
  Duration retry_base = std::chrono::milliseconds(200);
  Duration retry_cap = std::chrono::seconds(30);
  // Applied to every object before it is cached and handed to handlers (client-go's
  // TransformFunc): drop what nobody reads, so a large cache stays small. Must keep
  // metadata.name/namespace/resourceVersion. Null = cache objects as received.
  std::function<void(rapidjson::Document& object)> transform;
};

// A transform that drops metadata.managedFields (often the largest part of an object, and read
// by no controller), as controller-runtime's default cache transform does.
void drop_managed_fields(rapidjson::Document& object);

class Informer {
 public:
  // `collection` names the resource; its namespace_ limits the watch ("" = all namespaces).
  Informer(Client& client, ResourceRef collection, InformerOptions options = {});
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Register before start(); handlers added later miss earlier events.
  void add_handler(ResourceEventHandler handler);
  void start();
  void stop();  // idempotent; returns after the thread has exited

  bool has_synced() const { return synced_.load(); }
  // Waits until the first list has been applied; false on timeout.
  bool wait_for_sync(std::chrono::milliseconds timeout) const;

  // Cache reads. Keys are "ns/name" (or "name" for cluster-scoped objects).
  ObjectPtr get(const std::string& key) const;
  std::vector<ObjectPtr> list() const;
  std::vector<ObjectPtr> list(const std::string& namespace_, const LabelSelector& selector = {}) const;
  std::size_t size() const;

  const ResourceRef& resource() const { return collection_; }
  std::string last_resource_version() const;
  // Counters for tests and metrics.
  int relist_count() const { return relists_.load(); }
  int watch_count() const { return watches_.load(); }

 private:
  void run();
  void relist();
  void watch_once();
  void apply(WatchEvent&& ev);
  void transform(rapidjson::Document& doc) const;  // options_.transform, then a tight copy
  bool sleep_for(Duration d);                      // false when stopped

  Client& client_;
  const ResourceRef collection_;
  const InformerOptions options_;
  std::vector<ResourceEventHandler> handlers_;

  mutable std::mutex cache_mu_;
  std::map<std::string, ObjectPtr> cache_;
  std::string resource_version_;

  mutable std::mutex state_mu_;
  mutable std::condition_variable state_cv_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> synced_{false};
  std::atomic<int> relists_{0};
  std::atomic<int> watches_{0};
  std::thread thread_;
};

}  // namespace dha::kube
