#pragma once
// Resolves a kind to its REST resource (plural, scope, subresources) through API discovery
// (/api/v1, /apis/<group>/<version>). Results are cached per group/version; a kind not in the
// cache re-fetches its group/version (a CRD installed after start shows up), at most once per
// `miss_refresh_interval` per group/version so a typo'd kind cannot hammer the server.
// Thread-safe; fetches are serialized.
//
//   Discovery d(client);
//   ResourceRef target = d.ref_for("apps.cozystack.io/v1alpha1", "Postgres", "tenant-a", "db");

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/resource.hpp"

namespace dha::kube {

struct ApiResource {
  std::string group;
  std::string version;
  std::string plural;
  std::string kind;
  bool namespaced = false;
  bool has_status = false;  // a "<plural>/status" subresource exists
  bool has_scale = false;   // a "<plural>/scale" subresource exists
  std::vector<std::string> verbs;
};

class Discovery {
 public:
  explicit Discovery(Client& client, Duration miss_refresh_interval = std::chrono::seconds(10),
                     const Clock& clock = SystemClock::instance());

  // Throws ApiError(NotFound) when the group/version or the kind does not exist.
  ApiResource resolve(const std::string& group, const std::string& version, const std::string& kind);
  // api_version is "v1" or "<group>/<version>"; the namespace is dropped for cluster-scoped kinds.
  ResourceRef ref_for(const std::string& api_version, const std::string& kind, const std::string& namespace_ = {},
                      const std::string& name = {});
  void invalidate();
  int fetch_count() const;

 private:
  struct GroupVersion {
    std::vector<ApiResource> resources;
    TimePoint fetched_at;
  };
  GroupVersion fetch(const std::string& group, const std::string& version);

  Client& client_;
  const Duration miss_refresh_interval_;
  const Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, GroupVersion> cache_;  // by "group/version"
  int fetches_ = 0;
};

}  // namespace dha::kube
