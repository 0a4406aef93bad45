#pragma once
// Everything one running server holds. One mutex guards it all (store, types, audit, faults):
// request handling is short except for webhook calls and watch waits, which drop the lock.

#include "dha/testing/api_server.hpp"
#include "http_types.hpp"
#include "object_store.hpp"
#include "resource_types.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

struct Fault {
  std::string method;
  std::string pattern;
  std::regex path;
  int status = 500;  // 0 = a delay fault: hold the request for `delay`, then serve it
  std::chrono::milliseconds delay{0};
  int remaining = 1;
};

struct ServerState {
  explicit ServerState(ApiServerOptions opts) : options(std::move(opts)), store(options.watch_history) {}

  ApiServerOptions options;
  std::string base_url;
  std::string ca_pem;

  mutable std::mutex mu;
  ObjectStore store;
  std::map<std::string, std::shared_ptr<const ResourceType>> types;  // by ResourceType::key()
  uint64_t types_generation = 1;  // bumped on every CRD change (discovery/OpenAPI hashes)
  std::vector<AuditEntry> audit;
  std::vector<Fault> faults;
  // Silenced watches (ApiServer::silence_watches): each open watch's flag with its resource
  // ("configmaps", "postgreses.apps.cozystack.io"), and the resources whose new watches start
  // silenced.
  std::vector<std::pair<std::string, std::weak_ptr<bool>>> watch_silence;
  std::set<std::string> silenced_resources;
  bool stopping = false;
};

// The resource a URL names, after lookup.
struct ResourceRequest {
  std::shared_ptr<const ResourceType> type;
  const ResourceVersionInfo* version = nullptr;
  std::string ns;           // "" for cluster-scoped or all-namespaces
  std::string name;         // "" for collections
  std::string subresource;  // "", "status", "scale"
  std::string api_version() const { return type->group.empty() ? version->name : type->group + "/" + version->name; }
};

// Entry point for every HTTP request (router.cpp).
HttpResponse handle_request(ServerState& state, HttpRequest& request);

// Registers built-ins and starts the store (api_server.cpp calls it before listening).
void install_builtin_types(ServerState& state);
void create_initial_namespaces(ServerState& state);

// Creates or replaces a CRD object from parsed JSON, as POST would (throws ApiError).
void apply_crd_object(ServerState& state, const Json& crd);

// Resource handling (resource_handler.cpp); `identity` is the authenticated caller.
HttpResponse handle_resource(ServerState& state, const ResourceRequest& rr, const HttpRequest& request,
                             const Identity& identity);

// Discovery and OpenAPI (discovery.cpp); returns false if the path is not a discovery path.
bool handle_discovery(ServerState& state, const HttpRequest& request, HttpResponse& response);

// A request body as a JSON document, from JSON, YAML or the protobuf kubectl sends for some
// built-ins (throws ApiError 415 for other media types).
JsonDoc read_object_body(const HttpRequest& request);

// TokenReview / SubjectAccessReview (auth.cpp).
const Identity* identity_for_token(const ServerState& state, const std::string& token);
HttpResponse handle_review(ServerState& state, const ResourceRequest& rr, const HttpRequest& request,
                           const Identity& caller);

// Table rendering (table.cpp).
bool wants_table(const HttpRequest& request);
std::string render_table(const ResourceType& type, const ResourceVersionInfo& version,
                         const std::vector<ObjectPtr>& objects, const std::string& list_rv,
                         const std::string& continue_token, bool include_columns);

// Watch (watch.cpp): call with state.mu held.
std::shared_ptr<ResponseStream> open_watch(ServerState& state, const ResourceRequest& rr, const HttpRequest& request);

// Object rendering for a requested version: the stored object with apiVersion rewritten.
std::string render_object(const Json& object, const std::string& api_version);
std::shared_ptr<JsonDoc> object_for_version(const Json& object, const std::string& api_version);

}  // namespace dha::testing::apiserver
