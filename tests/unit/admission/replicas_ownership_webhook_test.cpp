// The webhook as kube-apiserver sees it: AdmissionReview over HTTPS with keep-alive, plus the
// metrics it records.

#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/admission/replicas_ownership_webhook.hpp"
#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/registry.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace dha::admission {
namespace {

using testing_clients::HttpClient;

std::string review(const std::string& uid, const std::string& user, int from, int to) {
  auto object = [](int replicas) {
    return R"({"metadata":{"annotations":{")" + std::string(managed_by_annotation) +
           R"(":"db"}},"spec":{"values":{"replicas":)" + std::to_string(replicas) + "}}}";
  };
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":")" + uid +
         R"(","operation":"UPDATE","userInfo":{"username":")" + user + R"("},"oldObject":)" + object(from) +
         R"(,"object":)" + object(to) + "}}";
}

class WebhookOverTls : public ::testing::Test {
 protected:
  void SetUp() override {
    testing_pki::write_cert_dir(dir_.path(), pki_.serving);
    server::ServerOptions options;
    options.host = "127.0.0.1";
    options.tls = server::TlsOptions{dir_.path()};
    server::Router router;
    ReplicasOwnershipWebhookOptions webhook;
    webhook.apps_api_username = "system:serviceaccount:ops:apps";
    mount_replicas_ownership_webhook(router, webhook, &registry_);
    server::mount_metrics(router, registry_);
    server_ = std::make_unique<server::Server>(options, std::move(router));
    server_->start();
  }
  std::string url(const std::string& path) const {
    return "https://localhost:" + std::to_string(server_->port()) + path;
  }

  testing_pki::TempDir dir_;
  testing_pki::Pki pki_ = testing_pki::make_pki();
  telemetry::Registry registry_;
  std::unique_ptr<server::Server> server_;
};

TEST_F(WebhookOverTls, DeniesAllowsAndRejectsOverOneKeepAliveConnection) {
  HttpClient client(pki_.ca.cert);
  const std::vector<std::string> json{"Content-Type: application/json"};

  auto denied = client.request("POST", url("/validate-helmrelease-replicas"), review("d-1", "bob", 3, 5), json);
  ASSERT_EQ(denied.status, 200) << denied.error;
  rapidjson::Document doc;
  doc.Parse(denied.body.c_str());
  ASSERT_TRUE(doc.IsObject()) << denied.body;
  EXPECT_STREQ(doc["response"]["uid"].GetString(), "d-1");
  EXPECT_FALSE(doc["response"]["allowed"].GetBool());
  EXPECT_EQ(doc["response"]["status"]["code"].GetInt(), 403);

  // The allowed username comes from the options, not the default.
  auto allowed = client.request("POST", url("/validate-helmrelease-replicas"),
                                review("a-1", "system:serviceaccount:ops:apps", 3, 5), json);
  EXPECT_EQ(allowed.status, 200);
  EXPECT_NE(allowed.body.find("\"allowed\":true"), std::string::npos) << allowed.body;
  EXPECT_EQ(allowed.new_connections, 0);

  auto bad = client.request("POST", url("/validate-helmrelease-replicas"), "{oops", json);
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("invalid JSON"), std::string::npos) << bad.body;
  auto wrong_type = client.request("POST", url("/validate-helmrelease-replicas"), review("x", "bob", 1, 2),
                                   {"Content-Type: text/plain"});
  EXPECT_EQ(wrong_type.status, 400);

  // Still the same connection after the 400s: nothing was dropped.
  auto again = client.request("POST", url("/validate-helmrelease-replicas"), review("d-2", "bob", 3, 3), json);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.new_connections, 0);

  auto metrics = client.request("GET", url("/metrics"));
  EXPECT_EQ(metrics.status, 200);
  const std::string& text = metrics.body;
  EXPECT_NE(text.find("controller_runtime_webhook_requests_total{webhook=\"/validate-helmrelease-replicas\",code="
                      "\"200\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("controller_runtime_webhook_requests_total{webhook=\"/validate-helmrelease-replicas\",code="
                      "\"400\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("db_autoscaler_webhook_admissions_total{webhook=\"/validate-helmrelease-replicas\",result="
                      "\"denied\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("db_autoscaler_webhook_admissions_total{webhook=\"/validate-helmrelease-replicas\",result="
                      "\"allowed\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find("controller_runtime_webhook_latency_seconds_count{webhook=\"/validate-helmrelease-replicas\"} 5\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("controller_runtime_webhook_requests_in_flight{webhook=\"/validate-helmrelease-replicas\"} 0\n"),
            std::string::npos)
      << text;
}

TEST(MountReplicasOwnershipWebhook, WorksWithoutARegistry) {
  server::Router router;
  mount_replicas_ownership_webhook(router, {}, nullptr);
  server::Request request;
  request.method = "POST";
  request.path = "/validate-helmrelease-replicas";
  request.headers = {{"Content-Type", "application/json"}};
  request.body = review("u", "bob", 1, 2);
  auto response = router.dispatch(request);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_NE(response.body.find("\"allowed\":false"), std::string::npos);
}

}  // namespace
}  // namespace dha::admission
