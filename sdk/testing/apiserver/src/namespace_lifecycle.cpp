#include "namespace_lifecycle.hpp"

#include "object_meta.hpp"

namespace dha::testing::apiserver {

namespace {

ObjectPtr terminating_namespace(const ServerState& state, const std::string& ns) {
  if (ns.empty()) return nullptr;
  ObjectPtr obj = state.store.get("/namespaces", "", ns);
  if (!obj || string_at(*obj, {"metadata", "deletionTimestamp"}).empty()) return nullptr;
  return obj;
}

}  // namespace

bool is_namespace_type(const ResourceType& type) { return type.group.empty() && type.plural == "namespaces"; }

void refuse_create_in_terminating_namespace(const ServerState& state, const ResourceRequest& rr,
                                            const std::string& name) {
  if (!rr.type->namespaced || !terminating_namespace(state, rr.ns)) return;
  ApiError error(403, "Forbidden",
                 rr.type->resource_with_group() + " \"" + name +
                     "\" is forbidden: unable to create new content in namespace " + rr.ns +
                     " because it is being terminated");
  error.detail_name = name;
  error.detail_group = rr.type->group;
  error.detail_kind = rr.type->plural;
  error.causes = {{"NamespaceTerminating", "namespace " + rr.ns + " is being terminated", "metadata.namespace"}};
  throw error;
}

void run_namespace_controller(ServerState& state, const std::string& ns) {
  ObjectPtr namespace_object = terminating_namespace(state, ns);
  if (!namespace_object) return;
  bool pending = false;
  for (const auto& [key, type] : state.types) {
    if (!type->namespaced) continue;
    for (const auto& obj : state.store.list(key, ns)) {
      std::string name = string_at(*obj, {"metadata", "name"});
      if (finalizers_of(*obj).empty()) {
        auto gone = clone(*obj);
        uint64_t rv = state.store.next_rv();
        set_resource_version(*gone, rv);
        state.store.erase(key, ns, name, gone, rv);
        continue;
      }
      pending = true;  // its finalizers' owners release it; then this runs again
      if (string_at(*obj, {"metadata", "deletionTimestamp"}).empty()) {
        auto marked = clone(*obj);
        uint64_t rv = state.store.next_rv();
        set_resource_version(*marked, rv);
        set_string(ensure_object(*marked, "metadata", marked->GetAllocator()), "deletionTimestamp", now_rfc3339(),
                   marked->GetAllocator());
        state.store.put(key, ns, name, marked, rv, "MODIFIED");
      }
    }
  }
  if (pending) return;
  auto final_ns = clone(*namespace_object);
  remove_member(ensure_object(*final_ns, "spec", final_ns->GetAllocator()), "finalizers");
  uint64_t rv = state.store.next_rv();
  set_resource_version(*final_ns, rv);
  state.store.erase("/namespaces", "", ns, final_ns, rv);
}

}  // namespace dha::testing::apiserver
