// /metrics protected the Kubernetes way: TokenReview + SubjectAccessReview against the
// embedded API server, as controller-runtime's --metrics-secure filter does.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include <dha/server/kube_authorizer.hpp>
#include <dha/server/server.hpp>
#include <dha/server/standard_routes.hpp>
#include <dha/telemetry/registry.hpp>
#include <dha/testing/api_server.hpp>

#include <gtest/gtest.h>

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

  void start_metrics(std::chrono::milliseconds cache_ttl) {
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
    server::KubeAuthorizerOptions authz;
    authz.api_server_url = api_->url();
    authz.bearer_token = "operator-token";
    authz.ca_pem = api_->ca_pem();
    authz.cache_ttl = cache_ttl;
    options.authorizer = server::make_kube_authorizer(authz);
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
  EXPECT_EQ(token_reviews, 3);  // scraper, unknown, tenant (no token never asks)
  EXPECT_EQ(access_reviews, 2); // scraper, tenant
}

TEST_F(MetricsAuthorization, ApiServerFailureIsAn500NeverAnAllow) {
  start_metrics(std::chrono::milliseconds(0));
  api_->inject_fault("POST", "tokenreviews", 503, 1);
  auto r = scrape("scraper-token");
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("HTTP 503"), std::string::npos) << r.body;
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

} // namespace
} // namespace dha
