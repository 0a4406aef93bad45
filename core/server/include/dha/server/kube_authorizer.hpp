#pragma once

// Protecting an endpoint "the Kubernetes way", as controller-runtime's metrics filter and
// kube-rbac-proxy do: the caller's bearer token is checked with a TokenReview, then the
// identity it names with a SubjectAccessReview for the non-resource URL (path + verb).
// No token or a token the API server does not recognise → 401; a known identity without the
// RBAC grant → 403; the API server unreachable or answering garbage → the authorizer throws
// and the server answers 500 (never "allow").

#include <dha/server/http.hpp>

#include <chrono>
#include <cstddef>
#include <string>

namespace dha::server {

struct KubeAuthorizerOptions {
  std::string api_server_url;     // "https://10.96.0.1:443" (in-cluster: from KUBERNETES_SERVICE_*)
  std::string bearer_token;       // the operator's own token, used to create the reviews
  std::string ca_pem;             // CA bundle for the API server; empty = system CAs
  std::string verb = "get";       // checked against the request path
  std::chrono::milliseconds timeout{5000};
  std::chrono::milliseconds cache_ttl{10000}; // 0 disables caching; denials are cached too
  std::size_t max_cache_entries = 1024;
};

// The returned callable is thread-safe and may block for up to 2 × timeout on a cache miss:
// use it on a server of its own (the metrics port), not on the webhook's.
Authorizer make_kube_authorizer(KubeAuthorizerOptions options);

} // namespace dha::server
