#pragma once
// Every stored object, one global resourceVersion counter, and a bounded history of watch
// events. Not thread-safe by itself: ServerState's mutex guards it (watchers wait on changes_of their kind).

#include "json_util.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

struct WatchEvent {
  uint64_t resource_version = 0;
  std::string type;          // ADDED, MODIFIED, DELETED
  std::string resource_key;  // ResourceType::key()
  std::string ns;
  ObjectPtr object;
  ObjectPtr previous;  // the object before this write (null for ADDED), for selector transitions
};

class ObjectStore {
 public:
  explicit ObjectStore(std::size_t history_limit) : history_limit_(history_limit) {}

  ObjectPtr get(const std::string& key, const std::string& ns, const std::string& name) const;
  // Sorted by namespace then name; ns "" = every namespace.
  std::vector<ObjectPtr> list(const std::string& key, const std::string& ns) const;

  uint64_t current_rv() const { return rv_; }
  uint64_t next_rv() { return ++rv_; }

  // Stores `object` (whose metadata.resourceVersion must be `rv`) and records an event.
  void put(const std::string& key, const std::string& ns, const std::string& name, ObjectPtr object, uint64_t rv,
           const char* event_type);
  void erase(const std::string& key, const std::string& ns, const std::string& name, ObjectPtr final_object,
             uint64_t rv);

  // Events with rv > since for `key`, oldest first. Returns false if history no longer reaches
  // back to `since`. Found by binary search: the history is in resourceVersion order.
  bool events_since(uint64_t since, const std::string& key, std::vector<WatchEvent>& out) const;
  uint64_t oldest_available_rv() const { return compacted_rv_; }

  // A watcher of `key` waits here: notified on every write of that kind, and by wake_all().
  // One per kind, so a write wakes the watchers of its kind only, not every open watch.
  std::condition_variable& changes_of(const std::string& key) { return changes_[key]; }
  // Shutdown: wakes every waiter, of every kind and on `stopping`.
  void wake_all();
  std::condition_variable stopping;  // notified by wake_all() only

 private:
  void check_order(uint64_t rv) const;
  void record(WatchEvent event);

  std::map<std::string, std::map<std::string, ObjectPtr>> objects_;  // key -> "ns/name" -> object
  std::map<std::string, std::condition_variable> changes_;           // by ResourceType::key(); nodes stay put
  std::deque<WatchEvent> history_;
  std::size_t history_limit_;
  uint64_t rv_ = 1000;
  uint64_t compacted_rv_ = 1000;  // events at or below this are gone
};

}  // namespace dha::testing::apiserver
