#include "dha/server/metrics_auth.hpp"

#include <rapidjson/document.h>

#include "dha/kube/json.hpp"

namespace dha::op {
namespace {

rapidjson::Value str(const std::string& s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

kube::Config own_client_config(kube::Config config, const server::AttemptLimiter::Limits& reviews) {
  // Two API requests per review; the limiter in front already keeps to this, so the client's
  // own bucket never makes a scrape wait.
  config.qps = 2 * reviews.total_per_second;
  config.burst = static_cast<int>(2 * reviews.total_burst);
  return config;
}

}  // namespace

MetricsAuthorizer::MetricsAuthorizer(const kube::Config& config, MetricsAuthorizerOptions options)
    : client_(std::make_unique<kube::Client>(own_client_config(config, options.reviews))),
      cache_(options.cache_ttl, options.max_allowed_entries, options.max_refused_entries),
      limiter_(options.reviews) {}

server::AuthorizationResult MetricsAuthorizer::authorize(const server::Request& request) {
  const std::string token(request.bearer_token());
  if (token.empty()) return {false, 401, "Unauthorized: a bearer token is required"};
  server::AuthorizationResult result;
  if (cache_.lookup(token, request.path, result)) return result;
  if (!limiter_.try_take(server::peer_address(request.remote_address)))
    return {false, 429, "Too many token reviews from this client; retry later"};
  try {
    result = review(token, request.path);
  } catch (const std::exception& e) {
    // Not cached: an API hiccup must not lock a scraper out for the whole TTL.
    return {false, 503, std::string("authorization check failed: ") + e.what()};
  }
  cache_.store(token, request.path, result);
  return result;
}

server::AuthorizationResult MetricsAuthorizer::review(const std::string& token, const std::string& path) {
  rapidjson::Document tr(rapidjson::kObjectType);
  auto& a = tr.GetAllocator();
  tr.AddMember("apiVersion", "authentication.k8s.io/v1", a);
  tr.AddMember("kind", "TokenReview", a);
  rapidjson::Value spec(rapidjson::kObjectType);
  spec.AddMember("token", str(token, a), a);
  tr.AddMember("spec", spec, a);
  const auto reviewed = client_->create({"authentication.k8s.io", "v1", "tokenreviews", "", ""}, tr);
  const auto* authenticated = kube::find_path(reviewed, {"status", "authenticated"});
  if (authenticated == nullptr || !authenticated->IsBool() || !authenticated->GetBool())
    return {false, 401, "Unauthorized: the token is not valid"};
  const std::string user = kube::string_at(reviewed, {"status", "user", "username"});

  rapidjson::Document sar(rapidjson::kObjectType);
  auto& b = sar.GetAllocator();
  sar.AddMember("apiVersion", "authorization.k8s.io/v1", b);
  sar.AddMember("kind", "SubjectAccessReview", b);
  rapidjson::Value sspec(rapidjson::kObjectType);
  sspec.AddMember("user", str(user, b), b);
  rapidjson::Value groups(rapidjson::kArrayType);
  if (const auto* g = kube::find_path(reviewed, {"status", "user", "groups"}); g != nullptr && g->IsArray())
    for (const auto& item : g->GetArray())
      if (item.IsString()) groups.PushBack(rapidjson::Value(item.GetString(), b), b);
  sspec.AddMember("groups", groups, b);
  rapidjson::Value attrs(rapidjson::kObjectType);
  attrs.AddMember("path", str(path, b), b);
  attrs.AddMember("verb", "get", b);
  sspec.AddMember("nonResourceAttributes", attrs, b);
  sar.AddMember("spec", sspec, b);
  const auto decided = client_->create({"authorization.k8s.io", "v1", "subjectaccessreviews", "", ""}, sar);
  const auto* allowed = kube::find_path(decided, {"status", "allowed"});
  if (allowed != nullptr && allowed->IsBool() && allowed->GetBool()) return {true, 200, ""};
  return {false, 403, "Forbidden: user \"" + user + "\" is not allowed to get path \"" + path + "\""};
}

}  // namespace dha::op
