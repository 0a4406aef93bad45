// The replicas-ownership webhook end to end: our TLS server serves it, the embedded API server
// calls it for every HelmRelease CREATE, UPDATE and DELETE (registered as the chart registers
// it), and writers
// with different bearer-token identities try to change a managed release.

#include "shell_run.hpp"
#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/admission/replicas_ownership_webhook.hpp"
#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/registry.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/test_certificates.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <filesystem>

namespace dha {
namespace {

using testing_clients::HttpClient;
using testing_clients::HttpResult;

constexpr const char* gitops_user = "system:serviceaccount:flux-system:kustomize-controller";
constexpr const char* namespace_name = "tenant-a";
constexpr const char* releases = "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases/";

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string helm_release(const std::string& name, bool managed, int replicas) {
  std::string annotations =
      managed ? R"(,"annotations":{")" + std::string(admission::managed_by_annotation) + R"(":"db"})" : "";
  return R"({"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":")" + name +
         R"(","namespace":"tenant-a")" + annotations +
         R"(},"spec":{"interval":"5m","chart":{"spec":{"chart":"postgres"}},"values":{"replicas":)" +
         std::to_string(replicas) + R"(,"size":"10Gi"}}})";
}

std::string webhook_configuration(const std::string& ca_pem, const std::string& failure_policy) {
  return R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",)"
         R"("metadata":{"name":"db-autoscaler-replicas-ownership","labels":{"app":"db-autoscaler"}},)"
         R"("webhooks":[{"name":"replicas.autoscaling.cozystack.io","admissionReviewVersions":["v1"],)"
         R"("sideEffects":"None","failurePolicy":")" +
         failure_policy +
         R"(","timeoutSeconds":5,)"
         R"("clientConfig":{"service":{"namespace":"cozy-db-autoscaler","name":"db-autoscaler",)"
         R"("path":"/validate-helmrelease-replicas","port":443},"caBundle":")" +
         base64(ca_pem) +
         R"("},"rules":[{"operations":["CREATE","UPDATE","DELETE"],"apiGroups":["helm.toolkit.fluxcd.io"],)"
         R"("apiVersions":["v2","v2beta2","v2beta1"],"resources":["helmreleases"]}]}]})";
}

// Its standard error too: kubectl says why it was refused there.
dha::testsupport::ShellRun run(const std::string& command) { return dha::testsupport::run_shell(command + " 2>&1"); }

class ForceWriter : public ::testing::Test {
 protected:
  void SetUp() override {
    // The webhook, with a certificate for the Service name the API server verifies.
    auto cert = testing::issue_test_certificate({"db-autoscaler.cozy-db-autoscaler.svc"}, {"127.0.0.1"});
    ca_pem_ = cert.ca_pem;
    testing_pki::write_cert_dir(cert_dir_.path(), {cert.cert_pem, cert.key_pem});
    start_webhook();

    testing::ApiServerOptions options;
    options.tokens["gitops-token"] = {gitops_user, {"system:serviceaccounts"}, "u-gitops"};
    options.tokens["apps-token"] = {std::string(admission::default_apps_api_username), {}, "u-apps"};
    options.tokens["operator-token"] = {"system:serviceaccount:cozy-db-autoscaler:db-autoscaler", {}, "u-op"};
    options.tokens["admin-token"] = {"admin", {"system:masters"}, "u-admin"};
    options.tls = true;  // kubectl sends bearer tokens only over TLS
    options.crd_dirs = {DHA_TEST_CRD_DIR};
    options.webhook_services["cozy-db-autoscaler/db-autoscaler"] = webhook_port_;
    api_ = std::make_unique<testing::ApiServer>(options);
    api_->start();

    ASSERT_EQ(call("admin-token", "POST", "/api/v1/namespaces",
                   R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"tenant-a"}})")
                  .status,
              201);
    ASSERT_EQ(call("admin-token", "POST", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases",
                   helm_release("postgres-db", true, 3))
                  .status,
              201);
    ASSERT_EQ(call("admin-token", "POST", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases",
                   helm_release("postgres-unmanaged", false, 3))
                  .status,
              201);
    register_webhook("Ignore");
  }

  void start_webhook() {
    server::ServerOptions options;
    options.name = "webhook";
    options.host = "127.0.0.1";
    options.port = webhook_port_;  // 0 the first time; the same port when restarted
    options.tls = server::TlsOptions{cert_dir_.path()};
    server::Router router;
    admission::mount_replicas_ownership_webhook(router, {}, &metrics_);
    server::mount_metrics(router, metrics_);
    webhook_ = std::make_unique<server::Server>(options, std::move(router));
    webhook_->start();
    webhook_port_ = webhook_->port();
  }

  void register_webhook(const std::string& failure_policy) {
    const std::string path = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
    call("admin-token", "DELETE", path + "/db-autoscaler-replicas-ownership");
    auto created = call("admin-token", "POST", path, webhook_configuration(ca_pem_, failure_policy));
    ASSERT_EQ(created.status, 201) << created.body;
  }

  HttpResult call(const std::string& token, const std::string& method, const std::string& path,
                  const std::string& body = {}, const std::string& content_type = "application/json") {
    HttpClient client(api_->ca_pem());
    std::vector<std::string> headers{"Authorization: Bearer " + token};
    if (!body.empty()) headers.push_back("Content-Type: " + content_type);
    return client.request(method, api_->url() + path, body, headers, std::chrono::seconds(15));
  }

  HttpResult merge_patch(const std::string& token, const std::string& release, const std::string& patch) {
    return call(token, "PATCH", releases + release, patch, "application/merge-patch+json");
  }

  // spec.values.replicas as JSON text ("<none>" when absent) and the marker.
  std::pair<std::string, std::string> stored(const std::string& release) {
    auto got = call("admin-token", "GET", releases + release);
    rapidjson::Document doc;
    doc.Parse(got.body.c_str());
    if (!doc.IsObject()) return {"<unreadable>", ""};
    std::string replicas = "<none>";
    if (doc["spec"]["values"].HasMember("replicas") && doc["spec"]["values"]["replicas"].IsNumber())
      replicas = std::to_string(doc["spec"]["values"]["replicas"].GetDouble());
    std::string marker;
    const auto& meta = doc["metadata"];
    if (meta.HasMember("annotations") && meta["annotations"].HasMember(admission::managed_by_annotation.data()))
      marker = meta["annotations"][admission::managed_by_annotation.data()].GetString();
    return {replicas, marker};
  }

  testing_pki::TempDir cert_dir_;
  testing_pki::TempDir work_dir_;
  std::string ca_pem_;
  telemetry::Registry metrics_;
  std::uint16_t webhook_port_ = 0;
  std::unique_ptr<server::Server> webhook_;
  std::unique_ptr<testing::ApiServer> api_;
};

const std::string three = std::to_string(3.0);

TEST_F(ForceWriter, GitOpsWriterChangingReplicasOfAManagedReleaseIsDeniedWithTheMessage) {
  auto denied = merge_patch("gitops-token", "postgres-db", R"({"spec":{"values":{"replicas":5}}})");
  EXPECT_EQ(denied.status, 403) << denied.body;
  EXPECT_NE(denied.body.find("admission webhook \\\"replicas.autoscaling.cozystack.io\\\" denied the request: "
                             "replicas of this database is managed by DatabaseHorizontalAutoscaler \\\"db\\\"; delete "
                             "the DHA to regain manual control (attempted change 3 -> 5 by \\\"" +
                             std::string(gitops_user) + "\\\")"),
            std::string::npos)
      << denied.body;
  EXPECT_EQ(stored("postgres-db").first, three);
}

TEST_F(ForceWriter, TheReferenceBypassesAreClosed) {
  struct Case {
    const char* name;
    const char* patch;
  };
  const Case cases[] = {
      {"delete replicas", R"({"spec":{"values":{"replicas":null}}})"},
      {"stringify replicas", R"({"spec":{"values":{"replicas":"5"}}})"},
      {"remove the marker",
       R"({"metadata":{"annotations":{"apps.cozystack.io-autoscaling.cozystack.io/managed-by":null}}})"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = merge_patch("gitops-token", "postgres-db", c.patch);
    EXPECT_EQ(r.status, 403) << r.body;
  }
  auto [replicas, marker] = stored("postgres-db");
  EXPECT_EQ(replicas, three);
  EXPECT_EQ(marker, "db");
}

TEST_F(ForceWriter, OnlyTheAppsApiIdentityIsAllowed) {
  EXPECT_EQ(merge_patch("apps-token", "postgres-db", R"({"spec":{"values":{"replicas":4}}})").status, 200);
  EXPECT_EQ(stored("postgres-db").first, std::to_string(4.0));
  // The operator's own ServiceAccount never writes HelmReleases (its changes go through the
  // apps API), so it gets no exception.
  EXPECT_EQ(merge_patch("operator-token", "postgres-db", R"({"spec":{"values":{"replicas":5}}})").status, 403);
  EXPECT_EQ(stored("postgres-db").first, std::to_string(4.0));
}

TEST_F(ForceWriter, ASuspendedManagedReleaseCannotBeDeletedAndRecreated) {
  ASSERT_EQ(merge_patch("gitops-token", "postgres-db", R"({"spec":{"suspend":true}})").status, 200);
  auto deleted = call("gitops-token", "DELETE", std::string(releases) + "postgres-db");
  EXPECT_EQ(deleted.status, 403) << deleted.body;
  EXPECT_NE(deleted.body.find("attempted deletion by"), std::string::npos) << deleted.body;
  EXPECT_EQ(stored("postgres-db"), std::make_pair(three, std::string("db")));

  // Nor can a writer create a release that claims to be managed.
  auto created = call("gitops-token", "POST", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases",
                      helm_release("postgres-other", true, 9));
  EXPECT_EQ(created.status, 403) << created.body;
  EXPECT_NE(created.body.find("attempted creation of a managed release"), std::string::npos) << created.body;

  // The apps API (a tenant deleting the Application) may do both.
  EXPECT_EQ(call("apps-token", "DELETE", std::string(releases) + "postgres-db").status, 200);
  EXPECT_EQ(call("apps-token", "POST", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases",
                 helm_release("postgres-db", true, 3))
                .status,
            201);
}

TEST_F(ForceWriter, UnmanagedReleaseIsUntouchedByTheWebhook) {
  auto r = merge_patch("gitops-token", "postgres-unmanaged", R"({"spec":{"values":{"replicas":7}}})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(stored("postgres-unmanaged").first, std::to_string(7.0));
}

TEST_F(ForceWriter, OtherEditsOfAManagedReleasePass) {
  auto r = merge_patch("gitops-token", "postgres-db", R"({"spec":{"values":{"size":"20Gi"}}})");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(ForceWriter, KubectlSeesTheDenial) {
  if (!std::filesystem::exists("/usr/bin/kubectl") && run("command -v kubectl").exit_code != 0)
    FAIL() << "kubectl is required for this test and was not found on PATH";
  const auto kubeconfig = (work_dir_.path() / "gitops.kubeconfig").string();
  api_->write_kubeconfig(kubeconfig, "gitops-token");
  auto result =
      run("kubectl --kubeconfig " + kubeconfig +
          " -n tenant-a patch helmrelease postgres-db --type merge -p '{\"spec\":{\"values\":{\"replicas\":9}}}'");
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_NE(result.out.find("denied the request: replicas of this database is managed by "
                            "DatabaseHorizontalAutoscaler \"db\""),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("(attempted change 3 -> 9 by \"" + std::string(gitops_user) + "\")"), std::string::npos)
      << result.out;
}

TEST_F(ForceWriter, WithTheWebhookDownFailurePolicyDecides) {
  webhook_->stop();
  // Ignore (the chart's choice): the force writer wins while the webhook is down.
  auto ignored = merge_patch("gitops-token", "postgres-db", R"({"spec":{"values":{"replicas":6}}})");
  EXPECT_EQ(ignored.status, 200) << ignored.body;
  EXPECT_EQ(stored("postgres-db").first, std::to_string(6.0));

  // Fail: every matching UPDATE is refused while the webhook is down, even allowed identities.
  register_webhook("Fail");
  auto refused = merge_patch("gitops-token", "postgres-db", R"({"spec":{"values":{"replicas":7}}})");
  EXPECT_EQ(refused.status, 500) << refused.body;
  EXPECT_NE(refused.body.find("failed calling webhook"), std::string::npos) << refused.body;
  EXPECT_EQ(merge_patch("apps-token", "postgres-db", R"({"spec":{"values":{"replicas":7}}})").status, 500);

  // Back up on the same port: decisions resume.
  start_webhook();
  EXPECT_EQ(merge_patch("apps-token", "postgres-db", R"({"spec":{"values":{"replicas":7}}})").status, 200);
  EXPECT_EQ(merge_patch("gitops-token", "postgres-db", R"({"spec":{"values":{"replicas":8}}})").status, 403);
}

TEST_F(ForceWriter, WebhookMetricsCountTheDecisions) {
  merge_patch("gitops-token", "postgres-db", R"({"spec":{"values":{"replicas":5}}})");
  merge_patch("apps-token", "postgres-db", R"({"spec":{"values":{"replicas":4}}})");
  const auto text = metrics_.expose();
  EXPECT_NE(text.find("db_autoscaler_webhook_admissions_total{webhook=\"/validate-helmrelease-replicas\",result="
                      "\"denied\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("db_autoscaler_webhook_admissions_total{webhook=\"/validate-helmrelease-replicas\",result="
                      "\"allowed\"} 1\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace dha
