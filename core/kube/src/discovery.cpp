#include "dha/kube/discovery.hpp"

#include <fmt/format.h>

#include "dha/kube/json.hpp"

namespace dha::kube {

Discovery::Discovery(Client& client, Duration miss_refresh_interval, const Clock& clock)
    : client_(client), miss_refresh_interval_(miss_refresh_interval), clock_(clock) {}

Discovery::GroupVersion Discovery::fetch(const std::string& group, const std::string& version) {
  ++fetches_;
  const ResourceRef probe{group, version, "x", {}, {}};
  std::string path = resource_path(probe);  // validates the segments
  path.resize(path.size() - 2);             // drop "/x": the group/version document itself
  const rapidjson::Document list = client_.get_path(path);
  GroupVersion gv;
  gv.fetched_at = clock_.now();
  const rapidjson::Value* resources = find_path(list, {"resources"});
  if (resources == nullptr || !resources->IsArray()) return gv;
  std::map<std::string, std::vector<std::string>> subresources;
  for (const auto& r : resources->GetArray()) {
    const std::string name = string_at(r, {"name"});
    const auto slash = name.find('/');
    if (slash != std::string::npos) {
      subresources[name.substr(0, slash)].push_back(name.substr(slash + 1));
      continue;
    }
    ApiResource res;
    res.group = group;
    res.version = version;
    res.plural = name;
    res.kind = string_at(r, {"kind"});
    if (const auto* ns = find_path(r, {"namespaced"}); ns != nullptr && ns->IsBool()) res.namespaced = ns->GetBool();
    if (const auto* verbs = find_path(r, {"verbs"}); verbs != nullptr && verbs->IsArray())
      for (const auto& v : verbs->GetArray())
        if (v.IsString()) res.verbs.emplace_back(v.GetString());
    gv.resources.push_back(std::move(res));
  }
  for (auto& res : gv.resources) {
    for (const auto& sub : subresources[res.plural]) {
      if (sub == "status") res.has_status = true;
      if (sub == "scale") res.has_scale = true;
    }
  }
  return gv;
}

ApiResource Discovery::resolve(const std::string& group, const std::string& version, const std::string& kind) {
  const std::string gv_key = group + "/" + version;
  std::lock_guard lock(mu_);
  auto find_kind = [&](const GroupVersion& gv) -> const ApiResource* {
    for (const auto& r : gv.resources)
      if (r.kind == kind) return &r;
    return nullptr;
  };
  auto it = cache_.find(gv_key);
  if (it != cache_.end()) {
    if (const ApiResource* r = find_kind(it->second)) return *r;
    if (clock_.now() - it->second.fetched_at < miss_refresh_interval_)
      throw ApiError(Reason::NotFound, 404, fmt::format("kind {} not found in {} (cached)", kind, gv_key));
  }
  GroupVersion fresh = fetch(group, version);  // throws NotFound for an unknown group/version
  it = cache_.insert_or_assign(gv_key, std::move(fresh)).first;
  if (const ApiResource* r = find_kind(it->second)) return *r;
  throw ApiError(Reason::NotFound, 404, fmt::format("kind {} not found in {}", kind, gv_key));
}

ResourceRef Discovery::ref_for(const std::string& api_version, const std::string& kind, const std::string& namespace_,
                               const std::string& name) {
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  const ApiResource r = resolve(group, version, kind);
  return {group, version, r.plural, r.namespaced ? namespace_ : std::string(), name};
}

void Discovery::invalidate() {
  std::lock_guard lock(mu_);
  cache_.clear();
}

int Discovery::fetch_count() const {
  std::lock_guard lock(mu_);
  return fetches_;
}

}  // namespace dha::kube
