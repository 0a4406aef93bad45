// The request pipeline: authentication, fault injection, discovery, then resource URLs
// (/api/v1/..., /apis/<group>/<version>/...) resolved to a ResourceRequest. Every request is
// audited with the status it got.

#include "openapi.hpp"
#include "server_state.hpp"

#include <algorithm>
#include <chrono>

namespace dha::testing::apiserver {

namespace {

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '/') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

ApiError unknown_path(const HttpRequest& request) {
  ApiError e(404, "NotFound", "the server could not find the requested resource");
  (void)request;
  return e;
}

std::shared_ptr<const ResourceType> find_type(const ServerState& state, const std::string& group,
                                              const std::string& plural) {
  auto it = state.types.find(group + "/" + plural);
  return it == state.types.end() ? nullptr : it->second;
}

ResourceRequest resolve(ServerState& state, const HttpRequest& request) {
  auto segs = split_path(request.path);
  std::string group, version;
  std::size_t i = 0;
  if (segs.size() >= 2 && segs[0] == "api") {
    version = segs[1];
    i = 2;
  } else if (segs.size() >= 3 && segs[0] == "apis") {
    group = segs[1];
    version = segs[2];
    i = 3;
  } else {
    throw unknown_path(request);
  }
  std::vector<std::string> rest(segs.begin() + static_cast<long>(i), segs.end());
  if (rest.empty()) throw unknown_path(request);
  std::lock_guard lock(state.mu);
  ResourceRequest rr;
  // namespaces/{ns}/{resource}/... unless it is the Namespace object itself.
  if (rest.size() >= 3 && rest[0] == "namespaces" && group.empty() && rest[2] != "status" && rest[2] != "finalize") {
    rr.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  } else if (rest.size() >= 3 && rest[0] == "namespaces" && !group.empty()) {
    rr.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  rr.type = find_type(state, group, rest[0]);
  if (!rr.type) throw unknown_path(request);
  rr.version = rr.type->version(version);
  if (!rr.version) throw unknown_path(request);
  if (rest.size() >= 2) rr.name = rest[1];
  if (rest.size() >= 3) rr.subresource = rest[2];
  if (rest.size() > 3) throw unknown_path(request);
  if (rr.type->namespaced && rr.ns.empty() && !rr.name.empty()) throw unknown_path(request);
  if (!rr.type->namespaced && !rr.ns.empty()) throw unknown_path(request);
  if (rr.type->namespaced && rr.ns.empty() && request.method != "GET") {
    // POST to an all-namespaces collection is not a thing.
    throw method_not_allowed("the server does not allow this method on the requested resource");
  }
  return rr;
}

// Holds a request for `delay`, waking early when the server stops (stop() must not wait for it).
void hold(ServerState& state, std::chrono::milliseconds delay) {
  const auto until = std::chrono::steady_clock::now() + delay;
  std::unique_lock lock(state.mu);
  while (!state.stopping && std::chrono::steady_clock::now() < until)
    state.store.stopping.wait_until(lock,
                                    std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
}

bool check_fault(ServerState& state, const HttpRequest& request, HttpResponse& response) {
  std::chrono::milliseconds delay{0};
  {
    std::lock_guard lock(state.mu);
    for (auto& fault : state.faults) {
      if (fault.status != 0 || fault.remaining <= 0) continue;
      if (fault.method != "*" && fault.method != request.method) continue;
      if (!std::regex_search(request.path, fault.path)) continue;
      --fault.remaining;
      delay = fault.delay;
      break;
    }
  }
  if (delay.count() > 0) hold(state, delay);
  std::lock_guard lock(state.mu);
  for (auto it = state.faults.begin(); it != state.faults.end(); ++it) {
    if (it->status == 0 || it->remaining <= 0) continue;
    if (it->method != "*" && it->method != request.method) continue;
    if (!std::regex_search(request.path, it->path)) continue;
    --it->remaining;
    static const std::map<int, std::string> kReasons = {{400, "BadRequest"},    {401, "Unauthorized"},
                                                        {403, "Forbidden"},     {404, "NotFound"},
                                                        {409, "Conflict"},      {410, "Expired"},
                                                        {422, "Invalid"},       {429, "TooManyRequests"},
                                                        {500, "InternalError"}, {503, "ServiceUnavailable"},
                                                        {504, "Timeout"}};
    auto reason = kReasons.find(it->status);
    ApiError error(it->status, reason == kReasons.end() ? "Unknown" : reason->second,
                   "injected fault for " + request.method + " " + request.path);
    if (it->status == 429 || it->status == 503) error.retry_after_seconds = 1;
    response.status = it->status;
    response.body = status_json(error);
    if (error.retry_after_seconds) response.headers.emplace_back("Retry-After", "1");
    return true;
  }
  return false;
}

bool accepts_json(const HttpRequest& request) {
  std::string accept = request.header("accept");
  return accept.empty() || accept.find("json") != std::string::npos || accept.find("*/*") != std::string::npos;
}

// The RBAC verb of a request on a resource URL.
std::string verb_of(const ResourceRequest& rr, const HttpRequest& request) {
  const std::string& m = request.method;
  if (m == "GET") return rr.name.empty() ? (request.flag("watch") ? "watch" : "list") : "get";
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return rr.name.empty() ? "deletecollection" : "delete";
  return m;
}

// A request the options deny, refused as kube-apiserver's RBAC words it.
void refuse_if_denied(const ServerState& state, const ResourceRequest& rr, const HttpRequest& request,
                      const Identity& identity) {
  const std::string verb = verb_of(rr, request);
  const std::string resource = rr.subresource.empty() ? rr.type->plural : rr.type->plural + "/" + rr.subresource;
  for (const auto& d : state.options.denied) {
    if (d.username != identity.username || d.verb != verb || d.resource != resource || d.group != rr.type->group)
      continue;
    const std::string where = rr.ns.empty() ? "at the cluster scope" : "in the namespace \"" + rr.ns + "\"";
    ApiError error(403, "Forbidden",
                   rr.type->resource_with_group() + (rr.name.empty() ? "" : " \"" + rr.name + "\"") +
                       " is forbidden: User \"" + identity.username + "\" cannot " + verb + " resource \"" + resource +
                       "\" in API group \"" + rr.type->group + "\" " + where);
    error.detail_name = rr.name;
    error.detail_group = rr.type->group;
    error.detail_kind = rr.type->plural;
    throw error;
  }
}

HttpResponse serve(ServerState& state, HttpRequest& request, Identity& identity) {
  std::string auth = request.header("authorization");
  std::string token = auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : "";
  bool public_path =
      request.path == "/version" || request.path == "/healthz" || request.path == "/livez" || request.path == "/readyz";
  if (state.options.tokens.empty()) {
    identity = Identity{"system:admin", {"system:masters", "system:authenticated"}, ""};
  } else if (const Identity* found = identity_for_token(state, token)) {
    identity = *found;
    // kube-apiserver adds this group to every authenticated user; RBAC bindings and
    // webhooks that check userInfo.groups rely on it.
    if (std::find(identity.groups.begin(), identity.groups.end(), "system:authenticated") == identity.groups.end())
      identity.groups.push_back("system:authenticated");
  } else if (!public_path) {
    throw ApiError(401, "Unauthorized", "Unauthorized");
  }
  HttpResponse response;
  if (check_fault(state, request, response)) return response;
  if (handle_openapi_v2(state, request, response)) return response;
  if (!accepts_json(request))
    throw ApiError(406, "NotAcceptable",
                   "only the following media types are accepted: application/json, application/yaml");
  if (handle_discovery(state, request, response)) return response;
  ResourceRequest rr = resolve(state, request);
  refuse_if_denied(state, rr, request, identity);
  return handle_resource(state, rr, request, identity);
}

}  // namespace

HttpResponse handle_request(ServerState& state, HttpRequest& request) {
  const auto received = std::chrono::system_clock::now();
  Identity identity;
  HttpResponse response;
  try {
    response = serve(state, request, identity);
  } catch (const ApiError& e) {
    response = HttpResponse{};
    response.status = e.code();
    response.body = status_json(e);
  } catch (const std::exception& e) {
    response = HttpResponse{};
    response.status = 500;
    response.body = status_json(internal_error(e.what()));
  }
  AuditEntry entry;
  entry.method = request.method;
  entry.path = request.path;
  entry.query = request.query;
  entry.username = identity.username;
  entry.content_type = request.header("content-type");
  entry.status = response.status;
  if (request.method != "GET" && request.method != "HEAD") entry.body = request.body;
  std::lock_guard lock(state.mu);
  entry.received = received;
  entry.time = std::chrono::system_clock::now();  // under the lock: audit order is time order
  state.audit.push_back(std::move(entry));
  return response;
}

}  // namespace dha::testing::apiserver
