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
// An allowed verdict is kept for minutes (a revoked scraper token is served that long), a
// refused one for seconds. When an allowed verdict runs out, the token is still known for as
// long again: its re-review spends a budget of its own, so a flood of invented tokens that has
// spent the shared budget does not turn a scraper's scrape into a 429.
namespace dha::op {

struct MetricsAuthorizerOptions {
  std::chrono::milliseconds cache_ttl{10000};     // refused verdicts; 0 disables every cache
  std::chrono::milliseconds allowed_ttl{300000};  // allowed verdicts (then known as long again)
  std::size_t max_allowed_entries = 1024;
  std::size_t max_refused_entries = 1024;
  server::AttemptLimiter::Limits reviews;  // cache misses of unknown tokens, per peer and in total
  // Re-reviews of tokens allowed before (their verdict ran out): a budget of their own.
  server::AttemptLimiter::Limits known_reviews{
      .per_peer_per_second = 1, .per_peer_burst = 5, .total_per_second = 5, .total_burst = 20};
};

class MetricsAuthorizer {
 public:
  // `config`: the operator's API server and credentials; the client made from it is this
  // authorizer's own, limited to what `options.reviews` lets through (two requests a review).
  explicit MetricsAuthorizer(const kube::Config& config, MetricsAuthorizerOptions options = {});
  server::AuthorizationResult authorize(const server::Request& request);

 private:
  server::AuthorizationResult review(const std::string& token, const std::string& path);

  const bool caching_;
  std::unique_ptr<kube::Client> client_;
  server::ReviewCache allowed_;  // allowed verdicts, for allowed_ttl
  server::ReviewCache refused_;  // refused verdicts, for cache_ttl
  server::ReviewCache known_;    // allowed verdicts, for 2 × allowed_ttl: whose re-review is not a stranger's
  server::AttemptLimiter limiter_;
  server::AttemptLimiter known_limiter_;
};

}  // namespace dha::op
