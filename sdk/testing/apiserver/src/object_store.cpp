#include "object_store.hpp"

namespace dha::testing::apiserver {

namespace {
std::string object_key(const std::string& ns, const std::string& name) { return ns + "/" + name; }
}  // namespace

ObjectPtr ObjectStore::get(const std::string& key, const std::string& ns, const std::string& name) const {
  auto type = objects_.find(key);
  if (type == objects_.end()) return nullptr;
  auto it = type->second.find(object_key(ns, name));
  return it == type->second.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> ObjectStore::list(const std::string& key, const std::string& ns) const {
  std::vector<ObjectPtr> out;
  auto type = objects_.find(key);
  if (type == objects_.end()) return out;
  for (const auto& [k, obj] : type->second)
    if (ns.empty() || k.compare(0, ns.size() + 1, ns + "/") == 0) out.push_back(obj);
  return out;
}

void ObjectStore::put(const std::string& key, const std::string& ns, const std::string& name, ObjectPtr object,
                      uint64_t rv, const char* event_type) {
  ObjectPtr& slot = objects_[key][object_key(ns, name)];
  ObjectPtr previous = std::move(slot);
  slot = object;
  record({rv, event_type, key, ns, std::move(object), std::move(previous)});
}

void ObjectStore::erase(const std::string& key, const std::string& ns, const std::string& name,
                        ObjectPtr final_object, uint64_t rv) {
  ObjectPtr previous;
  auto type = objects_.find(key);
  if (type != objects_.end()) {
    auto it = type->second.find(object_key(ns, name));
    if (it != type->second.end()) {
      previous = it->second;
      type->second.erase(it);
    }
  }
  record({rv, "DELETED", key, ns, std::move(final_object), std::move(previous)});
}

void ObjectStore::record(WatchEvent event) {
  history_.push_back(std::move(event));
  while (history_.size() > history_limit_) {
    compacted_rv_ = history_.front().resource_version;
    history_.pop_front();
  }
  changed.notify_all();
}

bool ObjectStore::events_since(uint64_t since, const std::string& key, std::vector<WatchEvent>& out) const {
  if (since < compacted_rv_) return false;
  for (const auto& e : history_)
    if (e.resource_version > since && e.resource_key == key) out.push_back(e);
  return true;
}

}  // namespace dha::testing::apiserver
