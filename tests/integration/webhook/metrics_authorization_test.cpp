// /metrics protected the Kubernetes way: TokenReview + SubjectAccessReview against the
// embedded API server, as controller-runtime's --metrics-secure filter does, with the
// authorizer the operator runs.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/kube/config.hpp"
#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/registry.hpp"
#include "dha/testing/api_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "dha/server/metrics_auth.hpp"
#include "sanitized_build.hpp"

namespace dha {
namespace {

using testing_clients::HttpClient;

constexpr const char* prometheus_user = "system:serviceaccount:monitoring:vmagent";

class MetricsAuthorization : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::ApiServerOptions api_options;
    api_options.tls = true;
    api_options.tokens["operator-token"] = {"system:serviceaccount:cozy-db-autoscaler:db-autoscaler", {}, "u-op"};
    api_options.tokens["scraper-token"] = {prometheus_user, {"system:serviceaccounts"}, "u-scraper"};
    api_options.tokens["tenant-token"] = {"tenant-user", {"tenants"}, "u-tenant"};
    api_options.sar_allowed_users = {prometheus_user};
    api_ = std::make_unique<testing::ApiServer>(api_options);
    api_->start();
  }

  // `config` as the reconcilers' client has it; the authorizer makes its own client from it.
  kube::Config operator_config() const {
    kube::Config config;
    config.server = api_->url();
    config.ca_pem = api_->ca_pem();
    config.token = std::make_shared<kube::StaticToken>("operator-token");
    return config;
  }

  void start_metrics(std::chrono::milliseconds cache_ttl) {
    op::MetricsAuthorizerOptions options;
    options.cache_ttl = cache_ttl;
    start_metrics(options, operator_config());
  }

  void start_metrics(const op::MetricsAuthorizerOptions& authorizer_options, const kube::Config& config) {
    testing_pki::write_cert_dir(dir_.path(), pki_.serving);
    registry_.gauge("db_autoscaler_current_replicas", "Observed count.", {"namespace", "name"})
        .with({"tenant-a", "db"})
        ->set(3);
    server::Router router;
    server::mount_metrics(router, registry_);
    server::ServerOptions options;
    options.name = "metrics";
    options.host = "127.0.0.1";
    options.tls = server::TlsOptions{dir_.path()};
    authorizer_ = std::make_unique<op::MetricsAuthorizer>(config, authorizer_options);
    options.authorizer = [auth = authorizer_.get()](const server::Request& r) { return auth->authorize(r); };
    server_ = std::make_unique<server::Server>(options, std::move(router));
    server_->start();
  }

  testing_clients::HttpResult scrape(const std::string& token) {
    HttpClient client(pki_.ca.cert);
    std::vector<std::string> headers;
    if (!token.empty()) headers.push_back("Authorization: Bearer " + token);
    return client.request("GET", "https://localhost:" + std::to_string(server_->port()) + "/metrics", {}, headers);
  }

  testing_pki::TempDir dir_;
  testing_pki::Pki pki_ = testing_pki::make_pki();
  telemetry::Registry registry_;
  std::unique_ptr<testing::ApiServer> api_;
  std::unique_ptr<op::MetricsAuthorizer> authorizer_;
  std::unique_ptr<server::Server> server_;
};

TEST_F(MetricsAuthorization, OnlyAnAuthorizedIdentityReadsMetrics) {
  start_metrics(std::chrono::milliseconds(0));
  auto allowed = scrape("scraper-token");
  EXPECT_EQ(allowed.status, 200) << allowed.error << allowed.body;
  EXPECT_NE(allowed.body.find("db_autoscaler_current_replicas{namespace=\"tenant-a\",name=\"db\"} 3"),
            std::string::npos);

  EXPECT_EQ(scrape("").status, 401);
  EXPECT_EQ(scrape("no-such-token").status, 401);
  auto forbidden = scrape("tenant-token");
  EXPECT_EQ(forbidden.status, 403);
  EXPECT_NE(forbidden.body.find("user \"tenant-user\" is not allowed to get path \"/metrics\""), std::string::npos)
      << forbidden.body;

  // The reviews really went to the API server, made with the operator's identity.
  int token_reviews = 0;
  int access_reviews = 0;
  for (const auto& e : api_->audit()) {
    if (e.path.find("tokenreviews") != std::string::npos) {
      ++token_reviews;
      EXPECT_EQ(e.username, "system:serviceaccount:cozy-db-autoscaler:db-autoscaler");
    }
    if (e.path.find("subjectaccessreviews") != std::string::npos) ++access_reviews;
  }
  EXPECT_EQ(token_reviews, 3);   // scraper, unknown, tenant (no token never asks)
  EXPECT_EQ(access_reviews, 2);  // scraper, tenant
}

TEST_F(MetricsAuthorization, ApiServerFailureIsA503NeverAnAllow) {
  start_metrics(std::chrono::milliseconds(0));
  api_->inject_fault("POST", "tokenreviews", 503, 1);
  auto r = scrape("scraper-token");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("authorization check failed"), std::string::npos) << r.body;
  EXPECT_EQ(scrape("scraper-token").status, 200);
}

TEST_F(MetricsAuthorization, CachedDecisionsSurviveABriefApiServerOutage) {
  start_metrics(std::chrono::seconds(30));
  EXPECT_EQ(scrape("scraper-token").status, 200);
  EXPECT_EQ(scrape("tenant-token").status, 403);
  api_->inject_fault("POST", "reviews", 503, 10);
  EXPECT_EQ(scrape("scraper-token").status, 200);
  EXPECT_EQ(scrape("tenant-token").status, 403);
}

int reviews_in(const std::vector<testing::AuditEntry>& audit) {
  int n = 0;
  for (const auto& e : audit)
    if (e.path.find("reviews") != std::string::npos) ++n;
  return n;
}

// Anyone who reaches the port can send tokens. Invented ones must not push the scraper's
// verdict out of the cache, nor make the API server review more than the authorizer's own
// budget, nor wait on (or spend) the reconcilers' client budget.
TEST_F(MetricsAuthorization, AFloodOfInventedTokensIsBoundedAndLeavesTheScraperServed) {
  op::MetricsAuthorizerOptions options;
  options.cache_ttl = std::chrono::seconds(60);
  options.max_refused_entries = 8;
  options.reviews = {.per_peer_per_second = 1, .per_peer_burst = 10, .total_per_second = 1, .total_burst = 20};
  kube::Config reconcilers = operator_config();
  reconcilers.qps = 0.2;  // a budget so small that a review sent through it would wait seconds
  reconcilers.burst = 1;
  start_metrics(options, reconcilers);
  ASSERT_EQ(scrape("scraper-token").status, 200);
  api_->clear_audit();

  const auto started = std::chrono::steady_clock::now();
  int unauthorized = 0;
  int limited = 0;
  HttpClient attacker(pki_.ca.cert);
  const std::string url = "https://localhost:" + std::to_string(server_->port()) + "/metrics";
  for (int i = 0; i < 200; ++i) {
    auto r = attacker.request("GET", url, {}, {"Authorization: Bearer invented-" + std::to_string(i)});
    unauthorized += r.status == 401;
    limited += r.status == 429;
  }
  const auto took = std::chrono::steady_clock::now() - started;
  std::printf("flood of 200 invented tokens: %d reviewed (401), %d limited (429), %d API requests, %.0f ms\n",
              unauthorized, limited, reviews_in(api_->audit()),
              std::chrono::duration<double, std::milli>(took).count());
  // The peer's burst (10) plus what its 1/s refilled meanwhile: one TokenReview each, no
  // SubjectAccessReview. The flood takes well under 2 s, except in a sanitized build.
  const int refilled = static_cast<int>(std::chrono::duration<double>(took).count()) + 1;
  EXPECT_LE(unauthorized, 10 + refilled);
  EXPECT_GE(limited, 200 - 10 - refilled);
  EXPECT_LE(reviews_in(api_->audit()), 10 + refilled);
  if (!testsupport::kSanitizedBuild) {
    EXPECT_LT(took, std::chrono::seconds(5)) << "reviews waited on a client budget";
  }

  // The scraper's verdict is still cached: it is served with the API server refusing reviews.
  api_->inject_fault("POST", "reviews", 503, 100);
  EXPECT_EQ(scrape("scraper-token").status, 200);
}

// A scraper's allowed verdict runs out while invented tokens keep the shared review budget
// spent: its re-review comes out of the budget of known tokens, so every scrape is answered.
TEST_F(MetricsAuthorization, AScraperIsReReviewedWhileInventedTokensHoldTheSharedBudget) {
  op::MetricsAuthorizerOptions options;
  options.cache_ttl = std::chrono::seconds(60);
  options.allowed_ttl = std::chrono::milliseconds(300);
  options.reviews = {.per_peer_per_second = 0.01, .per_peer_burst = 3, .total_per_second = 0.01, .total_burst = 3};
  start_metrics(options, operator_config());
  ASSERT_EQ(scrape("scraper-token").status, 200);
  HttpClient attacker(pki_.ca.cert);
  const std::string url = "https://localhost:" + std::to_string(server_->port()) + "/metrics";
  int limited = 0;
  for (int i = 0; i < 20; ++i)
    limited += attacker.request("GET", url, {}, {"Authorization: Bearer invented-" + std::to_string(i)}).status == 429;
  ASSERT_GE(limited, 17) << "the shared budget is spent";
  api_->clear_audit();
  // Six scrapes, each after the allowed verdict ran out (300 ms): each is re-reviewed.
  int served = 0;
  for (int i = 0; i < 6; ++i) {
    // The state waited for is the passing of the verdict's lifetime itself.
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
    served += scrape("scraper-token").status == 200;
  }
  EXPECT_EQ(served, 6);
  EXPECT_GE(reviews_in(api_->audit()), 6) << "the verdict was reviewed again, not kept past its time";
  EXPECT_EQ(attacker.request("GET", url, {}, {"Authorization: Bearer invented-x"}).status, 429)
      << "unknown tokens still wait for the shared budget";
}

TEST(MetricsAuthorizerOptions, AnAllowedVerdictIsKeptForMinutes) {
  EXPECT_GE(op::MetricsAuthorizerOptions{}.allowed_ttl, std::chrono::minutes(5));
}

}  // namespace
}  // namespace dha
