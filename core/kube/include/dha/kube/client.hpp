#pragma once
// The typed Kubernetes REST client. Every verb maps to one HTTP request (list_all and
// update_with_retry to a few); failures throw ApiError (errors.hpp). Thread-safe: share one
// Client across the process. Objects go in and come out as RapidJSON documents.
//
//   Client client(Config::load(flags));
//   auto dha = client.get(resources::dhas("tenant-a").named("pg"));
//   client.merge_patch(target, R"({"spec":{"replicas":3}})");
//
// Writes carry `fieldManager` (default "db-autoscaler"). Optimistic concurrency is the
// caller's: update() sends the object's resourceVersion and a stale one fails with
// Reason::Conflict; update_with_retry() re-reads and re-applies a mutation on 409.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "dha/kube/config.hpp"
#include "dha/kube/errors.hpp"
#include "dha/kube/http_transport.hpp"
#include "dha/kube/resource.hpp"
#include "dha/kube/watch_decoder.hpp"

namespace dha::kube {

struct WriteOptions {
  std::string field_manager = "db-autoscaler";
  bool dry_run = false;
};

struct DeleteOptions {
  std::string propagation_policy;  // "", "Foreground", "Background", "Orphan"
  std::string precondition_uid;
  std::string precondition_resource_version;
};

// One page of a list.
struct ListPage {
  rapidjson::Document list;      // the full List object; items under "items"
  std::string resource_version;  // the list's metadata.resourceVersion
  std::string continue_token;    // "" on the last page
  std::size_t bytes = 0;         // the size of the response as received
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // "" = start from "now" (server sends ADDED for existing objects)
  bool allow_bookmarks = true;
  int timeout_seconds = 300;  // server closes the stream after this; the informer reconnects
  // Cut the stream when not one byte arrives for this long (0 = never): see HttpTransport::stream.
  std::chrono::milliseconds idle_timeout{0};
};

class Client {
 public:
  explicit Client(Config config);

  rapidjson::Document get(const ResourceRef& ref);
  // nullopt on NotFound; other errors throw.
  std::optional<rapidjson::Document> get_if_exists(const ResourceRef& ref);

  ListPage list(const ResourceRef& collection, const ListOptions& opts = {});
  // Follows `continue` until the last page (page size opts.limit, default 500) and returns one
  // List with every item and the first page's resourceVersion (a consistent snapshot; a 410
  // on an expired continue token restarts from the beginning once).
  ListPage list_all(const ResourceRef& collection, ListOptions opts = {});
  // The same pages, handed over one at a time so only one is held: `on_page(page, from_start)`
  // is called per page, with from_start true for the first page and again if an expired
  // continue token restarted the list (what was kept from earlier pages is stale then).
  // Returns the snapshot's resourceVersion (the first page's). With opts.page_bytes, the pages
  // are also bounded by bytes: their count follows the weight of the objects (PageSizer).
  std::string list_pages(const ResourceRef& collection, ListOptions opts,
                         const std::function<void(ListPage& page, bool from_start)>& on_page);

  rapidjson::Document create(const ResourceRef& collection, const rapidjson::Value& object, const WriteOptions& w = {});
  rapidjson::Document update(const ResourceRef& ref, const rapidjson::Value& object, const WriteOptions& w = {});
  rapidjson::Document merge_patch(const ResourceRef& ref, std::string_view patch, const WriteOptions& w = {});
  rapidjson::Document update_status(const ResourceRef& ref, const rapidjson::Value& object, const WriteOptions& w = {});
  rapidjson::Document patch_status(const ResourceRef& ref, std::string_view patch, const WriteOptions& w = {});
  rapidjson::Document get_scale(const ResourceRef& ref);
  rapidjson::Document patch_scale(const ResourceRef& ref, std::string_view patch, const WriteOptions& w = {});
  // RFC 6902: an array of operations, applied in order and all or nothing (a failed "test"
  // operation is a 422 and changes nothing). `subresource`: "", "status" or "scale".
  rapidjson::Document json_patch(const ResourceRef& ref, std::string_view patch, std::string_view subresource = "",
                                 const WriteOptions& w = {});
  // Deletes; a NotFound is an error (callers that do not care catch it).
  void remove(const ResourceRef& ref, const DeleteOptions& d = {});

  // GET, mutate, PUT; on 409 Conflict re-GET and mutate again, up to `attempts` times.
  // `mutate` returns false to skip the write (nothing to change); the current object is returned.
  rapidjson::Document update_with_retry(const ResourceRef& ref, const std::function<bool(rapidjson::Document&)>& mutate,
                                        int attempts = 5, const WriteOptions& w = {});

  // Blocking watch: calls `on_event` per event until the server ends the stream (returns
  // normally), `on_event` returns false, or `stop` is set. An ERROR event or a non-2xx
  // response throws ApiError (Reason::Gone when the resourceVersion is too old).
  void watch(const ResourceRef& collection, const WatchOptions& opts, const std::function<bool(WatchEvent&&)>& on_event,
             const std::atomic<bool>* stop = nullptr);

  // A raw GET of an API path returning parsed JSON (discovery, /version).
  rapidjson::Document get_path(const std::string& path);

  const Config& config() const { return transport_.config(); }
  HttpTransport& transport() { return transport_; }

  // Called before every request that writes (any method but GET, watches included in GET).
  // It throws to refuse the write, which is then never sent, or returns the time by which the
  // write must be over: the request is abandoned then, so a write never outlives the right to
  // send it. The operator fences its writes with the leader lease (the lease's renew deadline).
  // Set it before the client is shared between threads.
  using WriteFence = std::function<std::chrono::steady_clock::time_point()>;
  void set_write_fence(WriteFence fence) { write_fence_ = std::move(fence); }

 private:
  rapidjson::Document send(const std::string& method, const std::string& path, std::string body = {},
                           std::string content_type = {});
  // The response of a request that succeeded (2xx); an ApiError otherwise.
  HttpResponse perform(const std::string& method, const std::string& path, std::string body = {},
                       std::string content_type = {});
  HttpTransport transport_;
  WriteFence write_fence_;
};

// What a write fence throws: this process may no longer write (it lost the leader lease).
class WriteFenced : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dha::kube
