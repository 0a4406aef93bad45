// Validating admission webhooks: the server calls a real HTTPS webhook (a test server on
// loopback with its own CA in caBundle) and honours rules, failurePolicy and timeouts.

#include "test_support.hpp"

#include "dha/testing/test_certificates.hpp"
#include "http_server.hpp"  // the kit's own HTTP server doubles as the webhook under test
#include "json_util.hpp"

#include <atomic>
#include <chrono>
#include <mutex>

namespace dha::testing::test {
namespace {

using apiserver::HttpRequest;
using apiserver::HttpResponse;

// Denies any HelmRelease UPDATE that changes spec.values.replicas unless the user is
// "operator", like the replicas-ownership webhook; records every review it saw.
class FakeWebhook {
 public:
  FakeWebhook() : cert_(issue_test_certificate({"db-autoscaler.cozy-db-autoscaler.svc", "localhost"}, {"127.0.0.1"})) {
    server_ = std::make_unique<apiserver::HttpServer>([this](HttpRequest& r) { return handle(r); }, 1 << 20);
    apiserver::HttpServer::Tls tls{cert_.cert_pem, cert_.key_pem};
    server_->start("127.0.0.1", 0, &tls);
  }
  ~FakeWebhook() { server_->stop(); }

  uint16_t port() const { return server_->port(); }
  std::string ca_bundle() const { return apiserver::base64_encode(cert_.ca_pem); }
  std::vector<std::string> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }
  std::vector<std::string> reviews() {  // every AdmissionReview received, as sent
    std::lock_guard lock(mu_);
    return reviews_;
  }
  std::atomic<int> delay_ms{0};

 private:
  HttpResponse handle(HttpRequest& request) {
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
    auto review = apiserver::parse_json(request.body);
    std::string uid = apiserver::string_at(review, {"request", "uid"});
    std::string user = apiserver::string_at(review, {"request", "userInfo", "username"});
    std::string op = apiserver::string_at(review, {"request", "operation"});
    {
      std::lock_guard lock(mu_);
      seen_.push_back(op + " " + apiserver::string_at(review, {"request", "name"}) + " by " + user);
      reviews_.push_back(request.body);
    }
    const auto* old_replicas = apiserver::at_path(review, {"request", "oldObject", "spec", "values", "replicas"});
    const auto* new_replicas = apiserver::at_path(review, {"request", "object", "spec", "values", "replicas"});
    bool changes = old_replicas && new_replicas && old_replicas->IsNumber() && new_replicas->IsNumber() &&
                   old_replicas->GetDouble() != new_replicas->GetDouble();
    HttpResponse response;
    if (user == "silent-denier") {
      response.body = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" + uid +
                      R"(","allowed":false}})";
    } else if (changes && user != "operator") {
      response.body =
          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" + uid +
          R"(","allowed":false,"status":{"code":403,"reason":"Forbidden","message":"replicas of this database is managed by DatabaseHorizontalAutoscaler \"pg\""}}})";
    } else {
      response.body = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":")" + uid +
                      R"(","allowed":true}})";
    }
    return response;
  }

  TestCertificate cert_;
  std::unique_ptr<apiserver::HttpServer> server_;
  std::mutex mu_;
  std::vector<std::string> seen_;
  std::vector<std::string> reviews_;
};

const std::string kReleaseRules =
    R"([{"operations":["UPDATE"],"apiGroups":["helm.toolkit.fluxcd.io"],"apiVersions":["v2","v2beta2","v2beta1"],
        "resources":["helmreleases"]}])";

class AdmissionTest : public ApiServerTest {
 protected:
  void configure(ApiServerOptions& options) override {
    options.tokens["op-token"] = Identity{"operator", {"system:serviceaccounts"}, "u1"};
    options.tokens["gitops-token"] = Identity{"kustomize-controller", {}, "u2"};
    options.tokens["silent-token"] = Identity{"silent-denier", {}, "u3"};
    options.webhook_services["cozy-db-autoscaler/db-autoscaler"] = webhook.port();
  }

  void register_webhook(const std::string& client_config, const std::string& failure_policy, int timeout,
                        const std::string& rules = kReleaseRules) {
    std::string vwc = R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",
      "metadata":{"name":"db-autoscaler-replicas-ownership"},
      "webhooks":[{"name":"replicas.autoscaling.cozystack.io","admissionReviewVersions":["v1"],"sideEffects":"None",
        "failurePolicy":")" +
                      failure_policy + R"(","timeoutSeconds":)" + std::to_string(timeout) + R"(,
        "clientConfig":)" +
                      client_config + R"(,
        "rules":)" + rules +
                      "}]}";
    auto r = call("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", vwc,
                  "application/json", "op-token");
    ASSERT_EQ(r.status, 201) << r.body;
  }

  std::string service_config() const {
    return R"({"service":{"namespace":"cozy-db-autoscaler","name":"db-autoscaler","path":"/validate-helmrelease-replicas","port":443},"caBundle":")" +
           webhook.ca_bundle() + "\"}";
  }

  void create_release() {
    auto r = call("POST", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/default/helmreleases",
                  R"({"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"postgres-db1"},
                      "spec":{"interval":"5m","values":{"replicas":3}}})",
                  "application/json", "gitops-token");
    ASSERT_EQ(r.status, 201) << r.body;
  }

  HttpResult patch_replicas(int replicas, const std::string& token, const std::string& version = "v2") {
    return call("PATCH", "/apis/helm.toolkit.fluxcd.io/" + version + "/namespaces/default/helmreleases/postgres-db1",
                R"({"spec":{"values":{"replicas":)" + std::to_string(replicas) + "}}}", "application/merge-patch+json",
                token);
  }

  FakeWebhook webhook;
};

TEST_F(AdmissionTest, DenialReachesTheClientWithTheWebhookStatus) {
  register_webhook(service_config(), "Fail", 5);
  create_release();
  auto denied = patch_replicas(5, "gitops-token");
  EXPECT_EQ(denied.status, 403) << denied.body;
  auto doc = denied.json();
  EXPECT_STREQ(doc["reason"].GetString(), "Forbidden");
  EXPECT_EQ(std::string(doc["message"].GetString()),
            "admission webhook \"replicas.autoscaling.cozystack.io\" denied the request: replicas of this database is "
            "managed by DatabaseHorizontalAutoscaler \"pg\"");
  // Nothing was written.
  auto current =
      call("GET", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/default/helmreleases/postgres-db1", "", "", "op-token");
  EXPECT_NE(current.body.find("\"replicas\":3"), std::string::npos);
  // The operator's identity is allowed, via any served version.
  EXPECT_EQ(patch_replicas(4, "op-token", "v2beta2").status, 200);
  auto seen = webhook.seen();
  ASSERT_EQ(seen.size(), 2u);  // CREATE is not in the rules
  EXPECT_EQ(seen[0], "UPDATE postgres-db1 by kustomize-controller");
  EXPECT_EQ(seen[1], "UPDATE postgres-db1 by operator");
}

TEST_F(AdmissionTest, KubectlSeesTheDenial) {
  register_webhook(service_config(), "Fail", 5);
  create_release();
  server->write_kubeconfig(kubeconfig, "gitops-token");
  auto r = kubectl("patch helmrelease postgres-db1 --type merge -p '{\"spec\":{\"values\":{\"replicas\":9}}}'");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(
      r.output.find(
          "Error from server (Forbidden): admission webhook \"replicas.autoscaling.cozystack.io\" denied the request"),
      std::string::npos)
      << r.output;
}

TEST_F(AdmissionTest, UnreachableWebhookFollowsFailurePolicy) {
  std::string nowhere = R"({"url":"https://127.0.0.1:1/validate","caBundle":")" + webhook.ca_bundle() + "\"}";
  register_webhook(nowhere, "Ignore", 2);
  create_release();
  EXPECT_EQ(patch_replicas(5, "gitops-token").status, 200) << "failurePolicy Ignore lets the write through";
  auto vwc_path =
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/db-autoscaler-replicas-ownership";
  ASSERT_EQ(call("PATCH", vwc_path, R"([{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Fail"}])",
                 "application/json-patch+json", "op-token")
                .status,
            200);
  auto failed = patch_replicas(6, "gitops-token");
  EXPECT_EQ(failed.status, 500) << failed.body;
  EXPECT_NE(failed.body.find("failed calling webhook \\\"replicas.autoscaling.cozystack.io\\\""), std::string::npos)
      << failed.body;
}

TEST_F(AdmissionTest, SlowWebhookTimesOut) {
  register_webhook(service_config(), "Fail", 1);
  create_release();
  webhook.delay_ms = 2500;
  auto start = std::chrono::steady_clock::now();
  auto r = patch_replicas(5, "op-token");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_NE(r.body.find("context deadline exceeded"), std::string::npos) << r.body;
  EXPECT_LT(took, std::chrono::milliseconds(2400));
  webhook.delay_ms = 0;
}

TEST_F(AdmissionTest, WrongCaBundleIsAFailedCall) {
  auto other = issue_test_certificate({"x"}, {});
  register_webhook(
      R"({"service":{"namespace":"cozy-db-autoscaler","name":"db-autoscaler","path":"/v","port":443},"caBundle":")" +
          apiserver::base64_encode(other.ca_pem) + "\"}",
      "Fail", 2);
  create_release();
  auto r = patch_replicas(5, "op-token");
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_TRUE(webhook.seen().empty()) << "TLS verification must fail before the review is sent";
}

}  // namespace
}  // namespace dha::testing::test

namespace dha::testing::test {
namespace {

TEST_F(AdmissionTest, ReviewsNameTheUserWithTheSystemAuthenticatedGroup) {
  register_webhook(service_config(), "Fail", 5);
  create_release();
  ASSERT_EQ(patch_replicas(4, "op-token").status, 200);
  auto reviews = webhook.reviews();
  ASSERT_EQ(reviews.size(), 1u);
  auto review = apiserver::parse_json(reviews[0]);
  std::vector<std::string> groups;
  for (const auto& g : apiserver::at_path(review, {"request", "userInfo", "groups"})->GetArray())
    groups.push_back(g.GetString());
  EXPECT_EQ(groups, (std::vector<std::string>{"system:serviceaccounts", "system:authenticated"}));
}

TEST_F(AdmissionTest, ScaleWritesAreReviewedAsAnAutoscalingV1Scale) {
  register_webhook(service_config(), "Fail", 5,
                   R"([{"operations":["UPDATE"],"apiGroups":["postgresql.cnpg.io"],"apiVersions":["v1"],
                        "resources":["clusters/scale"]}])");
  const std::string clusters = "/apis/postgresql.cnpg.io/v1/namespaces/default/clusters";
  auto created =
      call("POST", clusters,
           R"({"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{"name":"pg","labels":{"a":"b"}},
                          "spec":{"instances":2}})",
           "application/json", "op-token");
  ASSERT_EQ(created.status, 201) << created.body;
  auto scaled =
      call("PATCH", clusters + "/pg/scale", R"({"spec":{"replicas":3}})", "application/merge-patch+json", "op-token");
  ASSERT_EQ(scaled.status, 200) << scaled.body;
  auto reviews = webhook.reviews();
  ASSERT_EQ(reviews.size(), 1u);
  auto review = apiserver::parse_json(reviews[0]);
  auto text = [&](std::initializer_list<const char*> path) {
    std::vector<std::string> p(path.begin(), path.end());
    return apiserver::string_at(review, p);
  };
  EXPECT_EQ(text({"request", "kind", "group"}), "autoscaling");
  EXPECT_EQ(text({"request", "kind", "version"}), "v1");
  EXPECT_EQ(text({"request", "kind", "kind"}), "Scale");
  EXPECT_EQ(text({"request", "resource", "group"}), "postgresql.cnpg.io");
  EXPECT_EQ(text({"request", "resource", "resource"}), "clusters");
  EXPECT_EQ(text({"request", "subResource"}), "scale");
  EXPECT_EQ(text({"request", "object", "kind"}), "Scale");
  EXPECT_EQ(text({"request", "object", "apiVersion"}), "autoscaling/v1");
  EXPECT_EQ(apiserver::at_path(review, {"request", "object", "spec", "replicas"})->GetInt64(), 3);
  EXPECT_EQ(apiserver::at_path(review, {"request", "oldObject", "spec", "replicas"})->GetInt64(), 2);
  EXPECT_EQ(apiserver::at_path(review, {"request", "object", "spec", "instances"}), nullptr)
      << "the webhook sees the Scale, not the Cluster";
}

TEST_F(AdmissionTest, ADenialWithoutStatusIs400WithoutExplanation) {
  register_webhook(service_config(), "Fail", 5);
  create_release();
  auto denied = patch_replicas(4, "silent-token");
  EXPECT_EQ(denied.status, 400) << denied.body;
  auto doc = denied.json();
  EXPECT_FALSE(doc.HasMember("reason")) << "no reason given, none made up";
  EXPECT_EQ(std::string(doc["message"].GetString()),
            "admission webhook \"replicas.autoscaling.cozystack.io\" denied the request without explanation");
}

}  // namespace
}  // namespace dha::testing::test
