#include "host/cached_reader.hpp"

#include "host/api_calls.hpp"

namespace dha::op {

std::string resource_id(const kube::ResourceRef& ref) { return ref.plural + "." + ref.group + "/" + ref.version; }

kube::ObjectPtr ServerReader::get(const kube::ResourceRef& ref) const {
  return counted_api_call(metrics_, "get", [&] { return uncounted_.get(ref); });
}

std::vector<kube::ObjectPtr> ServerReader::list(const kube::ResourceRef& collection) const {
  return counted_api_call(metrics_, "list", [&] { return uncounted_.list(collection); });
}

namespace {
std::string cache_key(const kube::ResourceRef& ref) {
  return ref.namespace_.empty() ? ref.name : ref.namespace_ + "/" + ref.name;
}
std::string own_write_key(const kube::ResourceRef& ref) { return resource_id(ref) + "/" + cache_key(ref); }
}  // namespace

void CachedReader::wrote(const kube::ResourceRef& ref, const rapidjson::Value& response) const {
  const std::string version = kube::resource_version_of(response);
  if (version.empty()) return;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(mu_);
  // Writes are rare (a scale, a release): drop the entries whose wait is over here, so one for
  // a target that is never read again (its DHA deleted) does not stay for good.
  std::erase_if(own_writes_, [&](const auto& entry) { return now - entry.second.at >= own_write_wait_; });
  own_writes_[own_write_key(ref)] = {version, now};
}

void CachedReader::add(const kube::Informer& informer) {
  std::lock_guard lock(mu_);
  informers_[resource_id(informer.resource())] = {&informer, std::chrono::steady_clock::now()};
}

const kube::Informer* CachedReader::synced_informer(const kube::ResourceRef& ref) const {
  Registered found{};
  {
    std::lock_guard lock(mu_);
    auto it = informers_.find(resource_id(ref));
    if (it == informers_.end()) return nullptr;
    found = it->second;
  }
  if (found.informer->has_synced()) return found.informer;
  const auto left = found.added + sync_wait_ - std::chrono::steady_clock::now();
  if (left <= std::chrono::steady_clock::duration::zero()) return nullptr;
  return found.informer->wait_for_sync(std::chrono::ceil<std::chrono::milliseconds>(left)) ? found.informer : nullptr;
}

kube::ObjectPtr CachedReader::get(const kube::ResourceRef& ref) const {
  if (const auto* informer = synced_informer(ref)) {
    kube::ObjectPtr cached = informer->get(cache_key(ref));
    std::lock_guard lock(mu_);
    auto own = own_writes_.find(own_write_key(ref));
    if (own == own_writes_.end()) return cached;
    const bool caught_up = cached != nullptr && kube::resource_version_of(*cached) == own->second.resource_version;
    if (caught_up || std::chrono::steady_clock::now() - own->second.at >= own_write_wait_) {
      own_writes_.erase(own);
      return cached;
    }
    // Not yet (or another write came after ours and the cache is behind it too): the server's.
  }
  return server_.get(ref);
}

std::vector<kube::ObjectPtr> CachedReader::list(const kube::ResourceRef& collection) const {
  if (const auto* informer = synced_informer(collection)) return informer->list(collection.namespace_);
  return server_.list(collection);
}

}  // namespace dha::op
