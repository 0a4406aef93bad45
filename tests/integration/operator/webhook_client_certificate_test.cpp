// The operator's webhook with --webhook-client-ca. On the embedded server: a caller with a
// certificate from that CA is answered, one without or with another CA's is refused at the
// handshake, and the probe and metrics listeners ask nobody for a certificate. On a real
// kube-apiserver started with an admission configuration that gives it a client certificate
// for the webhook: kube-apiserver's own call is answered (a tenant's change is denied), while
// a caller without the certificate is refused.
#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "chart_webhooks.hpp"
#include "operator_world.hpp"
#include "shell_run.hpp"
#include "test_clients.hpp"
#include "test_pki.hpp"

namespace dha::optest {
namespace {

class WebhookClientCertificateTest : public OperatorWorld {
 protected:
  // The certificates and, for the real backend, kube-apiserver's admission configuration,
  // written before the control plane starts: it reads them at start.
  void SetUp() override {
    const auto& dir = files_.path();
    testing_pki::write_cert_dir(dir / "certs", serving_.serving);
    testing_pki::write_file(dir / "client-ca.pem", clients_.ca.cert);
    testing_pki::write_file(dir / "apiserver-client.crt", apiserver_cert_.cert);
    testing_pki::write_file(dir / "apiserver-client.key", apiserver_cert_.key);
    webhook_port_ = testing::free_loopback_port();
    // kube-apiserver picks the credentials for a webhook called by URL by the URL's host:port
    // (a webhook called through a Service: by <service>.<namespace>.svc).
    testing_pki::write_file(
        dir / "webhook-kubeconfig.yaml",
        fmt::format("apiVersion: v1\nkind: Config\nusers:\n"
                    "- name: \"127.0.0.1:{}\"\n"
                    "  user:\n"
                    "    client-certificate: {}\n"
                    "    client-key: {}\n",
                    webhook_port_, (dir / "apiserver-client.crt").string(), (dir / "apiserver-client.key").string()));
    testing_pki::write_file(dir / "admission.yaml", fmt::format("apiVersion: apiserver.config.k8s.io/v1\n"
                                                                "kind: AdmissionConfiguration\n"
                                                                "plugins:\n"
                                                                "- name: ValidatingAdmissionWebhook\n"
                                                                "  configuration:\n"
                                                                "    apiVersion: apiserver.config.k8s.io/v1\n"
                                                                "    kind: WebhookAdmissionConfiguration\n"
                                                                "    kubeConfigFile: {}\n",
                                                                (dir / "webhook-kubeconfig.yaml").string()));
    real_apiserver_args_ = {"--admission-control-config-file=" + (dir / "admission.yaml").string()};
    OperatorWorld::SetUp();
  }

  void start_webhook() {
    probe_port_ = testing::free_loopback_port();
    start_operator('a', {{"--cert-dir", (files_.path() / "certs").string()},
                         {"--enable-webhook", "true"},
                         {"--webhook-port", std::to_string(webhook_port_)},
                         {"--webhook-client-ca", (files_.path() / "client-ca.pem").string()},
                         {"--health-probe-bind-address", fmt::format("127.0.0.1:{}", probe_port_)},
                         {"--metrics-secure", "true"}});
    ASSERT_TRUE(eventually([&] { return listening_on_loopback(webhook_port_); }, 20s))
        << "the operator's webhook does not listen";
  }

  // A review posted to the webhook by a client presenting `cert` (none when empty).
  testing_clients::HttpResult post_review(const testing_pki::Pem& cert) {
    testing_clients::HttpClient client(serving_.ca.cert);
    if (!cert.cert.empty()) client.set_client_certificate(cert.cert, cert.key);
    return client.request("POST", fmt::format("https://localhost:{}/validate-dha-target", webhook_port_),
                          R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1"}})",
                          {"Content-Type: application/json"});
  }

  testing_pki::TempDir files_;
  testing_pki::Pki serving_ = testing_pki::make_pki("db-autoscaler-webhook");
  testing_pki::Pki clients_ = testing_pki::make_pki("unused");
  testing_pki::Pem apiserver_cert_ = testing_pki::issue_client(clients_.ca, "kube-apiserver-webhook-client");
  std::uint16_t webhook_port_ = 0;
  std::uint16_t probe_port_ = 0;
};

TEST_F(WebhookClientCertificateTest, OnlyCallersWithACertificateFromTheClientCaReachTheWebhook) {
  if (cluster_->backend() != testing::KubeBackend::embedded)
    GTEST_SKIP() << "the real server's own calls are KubeApiserverCallsWithItsClientCertificate";
  start_webhook();
  const auto answered = post_review(apiserver_cert_);
  EXPECT_EQ(answered.error, "");
  EXPECT_NE(answered.status, 0);
  EXPECT_NE(answered.body.find("AdmissionReview"), std::string::npos) << answered.status << " " << answered.body;

  const auto without = post_review({});
  EXPECT_NE(without.error, "");
  EXPECT_EQ(without.status, 0) << without.body;
  const auto other = post_review(testing_pki::issue_client(testing_pki::make_pki("other").ca, "kube-apiserver"));
  EXPECT_NE(other.error, "");
  EXPECT_EQ(other.status, 0) << other.body;
  // At debug level the operator says whom it refused, and why.
  EXPECT_TRUE(eventually(
      [&] {
        const std::string log = operators_.front()->log();
        return log.find("webhook: TLS handshake with 127.0.0.1:") != std::string::npos &&
               log.find("peer did not return a certificate") != std::string::npos &&
               log.find("unable to get local issuer certificate") != std::string::npos;
      },
      5s))
      << operators_.front()->log();

  // The probes and /metrics (TLS, with the same serving certificate) are other listeners.
  EXPECT_TRUE(eventually(
      [&] {
        return testing::http_request("GET", fmt::format("http://127.0.0.1:{}/healthz", probe_port_), {}, 2s).status ==
               200;
      },
      10s));
  testing_clients::HttpClient scraper(serving_.ca.cert);
  const auto metrics = scraper.request("GET", fmt::format("https://localhost:{}/metrics", metrics_port('a')), {},
                                       {"Authorization: Bearer " + cluster_->token("scraper")});
  EXPECT_EQ(metrics.error, "");
  EXPECT_EQ(metrics.status, 200) << metrics.body;
}

TEST_F(WebhookClientCertificateTest, KubeApiserverCallsWithItsClientCertificateAndATenantsChangeIsDenied) {
  if (cluster_->backend() != testing::KubeBackend::real)
    GTEST_SKIP() << "needs kube-apiserver's admission configuration";
  start_webhook();
  grant_helmrelease_editing(R"({"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"tenant-user"})");
  if (HasFatalFailure()) return;
  create_managed_helmrelease();
  if (HasFatalFailure()) return;
  const auto configured =
      cluster_->request("admin", "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
                        chart_webhooks_on_loopback(render_chart(), webhook_port_, serving_.ca.cert));
  ASSERT_EQ(configured.status, 201) << configured.body;

  // Only a call that got through the handshake can deny: one refused there fails, and the
  // chart's failurePolicy (Ignore) lets the patch through.
  const std::string patch = "kubectl --kubeconfig " + cluster_->kubeconfig("tenant") +
                            " -n tenant-a patch helmrelease postgres-db --type merge"
                            " -p '{\"spec\":{\"values\":{\"replicas\":9}}}' 2>&1";
  ASSERT_TRUE(eventually([&] { return testsupport::run_shell(patch + " --dry-run=server").exit_code != 0; }, 20s))
      << "the webhook never refused a dry run";
  const auto denied = testsupport::run_shell(patch);
  EXPECT_NE(denied.exit_code, 0) << denied.out;
  EXPECT_NE(denied.out.find("admission webhook \"replicas.autoscaling.cozystack.io\" denied the request: replicas "
                            "of this database is managed by DatabaseHorizontalAutoscaler \"db\""),
            std::string::npos)
      << denied.out;

  // Anyone else who reaches the port is refused before a request is read.
  const auto without = post_review({});
  EXPECT_NE(without.error, "");
  EXPECT_EQ(without.status, 0) << without.body;
}

}  // namespace
}  // namespace dha::optest
