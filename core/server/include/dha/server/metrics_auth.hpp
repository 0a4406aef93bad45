#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/server/http.hpp"
#include "dha/server/review_cache.hpp"

// --metrics-secure: the metrics endpoint "the Kubernetes way" (controller-runtime's
// WithAuthenticationAndAuthorization): the bearer token is checked with a TokenReview, and the
// user it names must be allowed `get` on the requested non-resource URL by a
// SubjectAccessReview. No token or an unknown one → 401; a known identity without the grant
// → 403; the API server failing → 503, never an allow.
//
// Anyone who can reach the port can send tokens, so the reviews run on a kube client of their
// own, with its own rate limit (the reconcilers' API budget is never spent on them), verdicts
// are cached under a digest of the token in a cache that invented tokens cannot empty, and
// each peer, and all together, may cause only so many reviews a second (429 beyond).
namespace dha::op {

struct MetricsAuthorizerOptions {
  std::chrono::milliseconds cache_ttl{10000};  // 0 disables caching
  std::size_t max_allowed_entries = 1024;
  std::size_t max_refused_entries = 1024;
  server::AttemptLimiter::Limits reviews;  // cache misses, per peer and in total, per second
};

class MetricsAuthorizer {
 public:
  // `config`: the operator's API server and credentials; the client made from it is this
  // authorizer's own, limited to what `options.reviews` lets through (two requests a review).
  explicit MetricsAuthorizer(const kube::Config& config, MetricsAuthorizerOptions options = {});
  server::AuthorizationResult authorize(const server::Request& request);

 private:
  server::AuthorizationResult review(const std::string& token, const std::string& path);

  std::unique_ptr<kube::Client> client_;
  server::ReviewCache cache_;
  server::AttemptLimiter limiter_;
};

}  // namespace dha::op
