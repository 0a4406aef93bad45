#pragma once
// Naming a resource: ResourceRef{group, version, plural, namespace, name} and the REST paths
// built from it. Core-group resources have group "" (path /api/v1/...), others
// /apis/<group>/<version>/.... An empty namespace means cluster-scoped, or "all namespaces" for
// list/watch. An empty name means the collection.
//
//   ResourceRef dha{"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", "ns", "x"};
//   resource_path(dha, "status") ==
//   "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/ns/databasehorizontalautoscalers/x/status"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dha::kube {

struct ResourceRef {
  std::string group;       // "" = core
  std::string version;     // "v1"
  std::string plural;      // "pods"
  std::string namespace_;  // "" = cluster-scoped / all namespaces
  std::string name;        // "" = collection

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  ResourceRef named(std::string n) const {
    ResourceRef r = *this;
    r.name = std::move(n);
    return r;
  }
  ResourceRef in_namespace(std::string ns) const {
    ResourceRef r = *this;
    r.namespace_ = std::move(ns);
    return r;
  }
  ResourceRef collection() const { return named(""); }
  // "ns/name" or "name": the cache and work-queue key of the object.
  std::string key() const { return namespace_.empty() ? name : namespace_ + "/" + name; }
  friend bool operator==(const ResourceRef&, const ResourceRef&) = default;
};

// Well-known resources the operator touches.
namespace resources {
inline ResourceRef events(std::string ns = {}) { return {"", "v1", "events", std::move(ns), {}}; }
inline ResourceRef namespaces() { return {"", "v1", "namespaces", {}, {}}; }
inline ResourceRef resource_quotas(std::string ns = {}) { return {"", "v1", "resourcequotas", std::move(ns), {}}; }
inline ResourceRef leases(std::string ns) { return {"coordination.k8s.io", "v1", "leases", std::move(ns), {}}; }
inline ResourceRef dhas(std::string ns = {}) {
  return {"autoscaling.cozystack.io", "v1alpha1", "databasehorizontalautoscalers", std::move(ns), {}};
}
}  // namespace resources

// Throws std::invalid_argument for a segment that would change the path ("/", "..", empty
// group version or plural, characters outside what Kubernetes names allow).
std::string resource_path(const ResourceRef& ref, std::string_view subresource = {});

// Splits "ns/name" (or "name") back into namespace and name.
std::pair<std::string, std::string> split_key(std::string_view key);

// Query parameters of list and watch.
struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  std::int64_t limit = 0;  // 0 = no paging
  // With limit, in Client::list_pages: pages also bounded by their size as received, about
  // this many bytes (see page_sizer.hpp); 0 = by count alone.
  std::size_t page_bytes = 0;
  std::string continue_token;
  std::string resource_version;
  bool allow_watch_bookmarks = false;  // watch only
  int timeout_seconds = 0;             // watch only; 0 = server default
};

// "?labelSelector=...&limit=..." (empty when nothing is set); values are percent-encoded.
std::string list_query(const ListOptions& opts, bool watch);

std::string percent_encode(std::string_view value);

}  // namespace dha::kube
