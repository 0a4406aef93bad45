// The chart's ValidatingWebhookConfiguration on a real kube-apiserver, pointed at the running
// operator's webhook on 127.0.0.1: kube-apiserver itself calls it for a tenant's kubectl patch
// of a managed HelmRelease and refuses the change; the apps API's passes, the operator's own
// identity's does not.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "chart_webhooks.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/test_certificates.hpp"
#include "operator_world.hpp"
#include "shell_run.hpp"

namespace dha::optest {
namespace {

using WebhookDenialTest = OperatorWorld;

constexpr const char* kReleases = "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases";

using CommandResult = dha::testsupport::ShellRun;

// Its standard error too: kubectl says why it was refused there.
CommandResult run(const std::string& command) { return dha::testsupport::run_shell(command + " 2>&1"); }

TEST_F(WebhookDenialTest, ATenantsKubectlPatchOfManagedReplicasIsDeniedByKubeApiserverCallingTheOperator) {
  if (cluster_->backend() != testing::KubeBackend::real)
    GTEST_SKIP() << "the force-writer suite covers the embedded server";
  // The operator serves the webhook with a certificate for 127.0.0.1.
  const auto cert = testing::issue_test_certificate({"localhost"}, {"127.0.0.1"});
  const std::string certs = dir_ + "/certs";
  std::filesystem::create_directories(certs);
  std::ofstream(certs + "/tls.crt") << cert.cert_pem;
  std::ofstream(certs + "/tls.key") << cert.key_pem;
  const auto webhook_port = testing::free_loopback_port();
  start_operator(
      'a', {{"--cert-dir", certs}, {"--enable-webhook", "true"}, {"--webhook-port", std::to_string(webhook_port)}});
  ASSERT_TRUE(eventually([&] { return listening_on_loopback(webhook_port); }, 20s))
      << "the operator's webhook does not listen";

  grant_helmrelease_editing(
      fmt::format(R"({{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"tenant-user"}},)"
                  R"({{"kind":"ServiceAccount","namespace":"cozy-system","name":"cozystack-api"}},)"
                  R"({{"kind":"ServiceAccount","namespace":"{}","name":"db-autoscaler-a"}})",
                  kReleaseNamespace));
  if (HasFatalFailure()) return;
  create_managed_helmrelease();
  if (HasFatalFailure()) return;
  const auto configured =
      cluster_->request("admin", "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                        chart_webhooks_on_loopback(render_chart(), webhook_port, cert.ca_pem));
  ASSERT_EQ(configured.status, 201) << configured.body;

  // kube-apiserver picks the configuration up asynchronously: wait with server-side dry runs
  // (the webhook has no side effects, so it is called for them too), then patch for real.
  const std::string patch = "kubectl --kubeconfig " + cluster_->kubeconfig("tenant") +
                            " -n tenant-a patch helmrelease postgres-db --type merge"
                            " -p '{\"spec\":{\"values\":{\"replicas\":9}}}'";
  ASSERT_TRUE(eventually([&] { return run(patch + " --dry-run=server").exit_code != 0; }, 20s))
      << "the webhook never denied a dry run";
  const CommandResult denied = run(patch);
  EXPECT_NE(denied.exit_code, 0) << denied.out;
  EXPECT_NE(denied.out.find("admission webhook \"replicas.autoscaling.cozystack.io\" denied the request: replicas "
                            "of this database is managed by DatabaseHorizontalAutoscaler \"db\""),
            std::string::npos)
      << denied.out;
  EXPECT_NE(denied.out.find("(attempted change 3 -> 9 by \"tenant-user\")"), std::string::npos) << denied.out;

  const std::string replicas5 = R"({"spec":{"values":{"replicas":5}}})";
  const auto by_apps = cluster_->request("apps", "PATCH", std::string(kReleases) + "/postgres-db", replicas5,
                                         "application/merge-patch+json");
  EXPECT_EQ(by_apps.status, 200) << by_apps.body;
  expected_refusals_.insert("PATCH " + std::string(kReleases) + "/postgres-db");
  const auto by_operator = cluster_->request("operator-a", "PATCH", std::string(kReleases) + "/postgres-db",
                                             R"({"spec":{"values":{"replicas":4}}})", "application/merge-patch+json");
  // The operator never writes HelmReleases itself (its changes arrive as the apps API), so its
  // own identity gets no exception.
  EXPECT_EQ(by_operator.status, 403) << by_operator.body;
  const auto stored = kube::parse_json(cluster_->request("admin", "GET", std::string(kReleases) + "/postgres-db").body);
  EXPECT_EQ(kube::find_path(stored, {"spec", "values", "replicas"})->GetInt(), 5);
}

}  // namespace
}  // namespace dha::optest
