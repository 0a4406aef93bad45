#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/informer.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/object_reader.hpp"
#include "host/self_metrics.hpp"

// The reads a reconcile makes besides the DHA itself — the target, the health object, the
// namespace, the namespace's ResourceQuotas — answered from the operator's watch-fed informer
// caches once the informer for that resource has synced, and by a GET/LIST (counted in
// db_autoscaler_api_requests_total) when no informer is registered or one has not synced
// within kSyncWait of being added (its LIST failing, say). A read inside that time waits for
// the sync instead: at 10 000 DHAs the first pass otherwise sent thousands of fallback GETs
// while the informers were still listing, through the same client rate limit as its writes.
// At 10 000 DHAs that is ~4 fewer API requests per reconcile (bench/scale); the cache is as fresh
// as the watch, which is what controller-runtime's cached client gives too. The DHA itself is
// still read with a GET: its status carries the decision state, and a status write must start
// from the latest one.
namespace dha::op {

// Every read a GET or LIST of the API server, counted in db_autoscaler_api_requests_total: the
// cache's fallback, and the reads a reconcile makes when only the server's answer will do.
class ServerReader final : public kube::ObjectReader {
 public:
  ServerReader(kube::Client& client, SelfMetrics& metrics) : uncounted_(client), metrics_(metrics) {}
  kube::ObjectPtr get(const kube::ResourceRef& ref) const override;
  std::vector<kube::ObjectPtr> list(const kube::ResourceRef& collection) const override;

 private:
  kube::ClientReader uncounted_;
  SelfMetrics& metrics_;
};

class CachedReader final : public kube::ObjectReader {
 public:
  static constexpr std::chrono::milliseconds kSyncWait{10000};

  static constexpr std::chrono::milliseconds kOwnWriteWait{10000};  // see wrote()

  CachedReader(kube::Client& client, SelfMetrics& metrics, std::chrono::milliseconds sync_wait = kSyncWait,
               std::chrono::milliseconds own_write_wait = kOwnWriteWait)
      : server_(client, metrics), sync_wait_(sync_wait), own_write_wait_(own_write_wait) {}

  // `informer` watches its resource in all namespaces and outlives this reader. Thread-safe.
  void add(const kube::Informer& informer);

  // The object, or nullptr when it does not exist; API errors of the fallback GET propagate.
  kube::ObjectPtr get(const kube::ResourceRef& ref) const override;
  // Every object of `collection` in collection.namespace_ (which must be set).
  std::vector<kube::ObjectPtr> list(const kube::ResourceRef& collection) const override;

  // Read your own writes: `response` is what the API server answered to our write of `ref`
  // (a patch of the object or of its /scale or /status). Until the cache shows the
  // resourceVersion it carries, for at most the own-write wait, get(ref) is a GET. Without it the
  // reconcile that follows a scale at once (the finalizer it added queues one) read the target
  // from before the patch, took its own write for a competing writer's and told the tenant so.
  void wrote(const kube::ResourceRef& ref, const rapidjson::Value& response) const;

  // The API server itself, for a read whose answer must be current rather than as fresh as the
  // watch: a cache fed by a watch that lags, or silently lost its connection, can be minutes
  // behind, and some answers (the quota left for a scale-up) must not be.
  const kube::ObjectReader& server() const { return server_; }

 private:
  const kube::Informer* synced_informer(const kube::ResourceRef& ref) const;

  ServerReader server_;
  const std::chrono::milliseconds sync_wait_;
  const std::chrono::milliseconds own_write_wait_;
  mutable std::mutex mu_;
  struct Registered {
    const kube::Informer* informer;
    std::chrono::steady_clock::time_point added;
  };
  std::map<std::string, Registered> informers_;  // by resource_id()
  struct OwnWrite {
    std::string resource_version;
    std::chrono::steady_clock::time_point at;
  };
  mutable std::map<std::string, OwnWrite> own_writes_;  // by resource_id() + "/" + cache key
};

// "<plural>.<group>/<version>": which informer serves a reference.
std::string resource_id(const kube::ResourceRef& ref);

}  // namespace dha::op
