#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "dha/kube/client.hpp"
#include "dha/server/http.hpp"

// --metrics-secure: the metrics endpoint "the Kubernetes way" (controller-runtime's
// WithAuthenticationAndAuthorization): the bearer token is checked with a TokenReview, and the
// user it names must be allowed `get` on the non-resource URL /metrics by a SubjectAccessReview.
// Answers are cached briefly so that a scrape every few seconds costs no API round trips.
namespace dha::op {

class MetricsAuthorizer {
 public:
  explicit MetricsAuthorizer(kube::Client& client, std::chrono::seconds cache_ttl = std::chrono::seconds(10))
      : client_(client), ttl_(cache_ttl) {}
  server::AuthorizationResult authorize(const server::Request& request);

 private:
  server::AuthorizationResult review(const std::string& token, const std::string& path);

  kube::Client& client_;
  std::chrono::seconds ttl_;
  std::mutex mu_;
  std::map<std::string, std::pair<std::chrono::steady_clock::time_point, server::AuthorizationResult>> cache_;
};

}  // namespace dha::op
