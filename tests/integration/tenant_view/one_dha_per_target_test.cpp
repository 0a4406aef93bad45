// One DHA per target, end to end: our TLS server serves the webhook with the operator's live
// listing through the kube client, the API server (embedded, or kube-apiserver with
// DHA_TEST_KUBE=real) calls it for DHA creates and updates (registered as the chart registers
// it), and a tenant's kubectl meets the refusal.

#include "shell_run.hpp"
#include "test_clients.hpp"
#include "test_pki.hpp"

#include "dha/admission/one_dha_per_target_webhook.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/resource.hpp"
#include "dha/server/server.hpp"
#include "dha/testing/real_kube_skip.hpp"
#include "dha/testing/test_certificates.hpp"
#include "dha/testing/test_cluster.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <unistd.h>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace dha {
namespace {

std::string base64(const std::string& in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string dha_yaml(const std::string& name, const std::string& target) {
  return "apiVersion: autoscaling.cozystack.io/v1alpha1\nkind: DatabaseHorizontalAutoscaler\nmetadata: {name: " + name +
         ", namespace: tenant-a}\nspec:\n  targetRef: {kind: Postgres, name: " + target +
         "}\n  minReplicas: 2\n  maxReplicas: 5\n  metrics:\n  - type: ReadConnections\n    target: {averageValue: "
         "\"150\"}\n";
}

using CommandResult = dha::testsupport::ShellRun;

CommandResult run(const std::string& command, const std::string& stdin_text) {
  const auto input = std::filesystem::temp_directory_path() / ("dha-stdin-" + std::to_string(::getpid()));
  { std::ofstream(input) << stdin_text; }
  CommandResult result = dha::testsupport::run_shell(command + " < " + input.string() + " 2>&1");
  std::filesystem::remove(input);
  return result;
}

class OneDhaPerTarget : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cert = testing::issue_test_certificate({"db-autoscaler.cozy-db-autoscaler.svc"}, {"127.0.0.1"});
    testing_pki::write_cert_dir(cert_dir_.path(), {cert.cert_pem, cert.key_pem});
    start_webhook();

    testing::TestClusterOptions options;
    options.crd_paths = {DHA_CHART_CRD_DIR};
    options.embedded.webhook_services["cozy-db-autoscaler/db-autoscaler"] = webhook_port_;
    options.backend = testing::kube_backend_from_environment();
    const bool real = options.backend == testing::KubeBackend::real;
    if (real && !testing::real_kube_unavailable_reason().empty()) {
      if (!testing::real_kube_may_be_skipped()) FAIL() << testing::real_kube_unavailable_reason();
      GTEST_SKIP() << testing::real_kube_unavailable_reason();
    }
    cluster_ = testing::start_test_cluster(options);
    kubeconfig_ = cluster_->kubeconfig("admin");
    kube::ConfigFlags flags;
    flags.kubeconfig = kubeconfig_;
    client_ = std::make_unique<kube::Client>(kube::Config::load(flags));
    client_->create(kube::resources::namespaces(),
                    parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"tenant-a"}})"));
    client_->create({"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "", ""},
                    parse(webhook_configuration(cert.ca_pem, real ? webhook_port_ : 0)));
    // kube-apiserver starts calling a new webhook configuration a moment later: wait for the
    // first call (a server-side dry run, which the side-effect-free webhook is called for).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (listings_ == 0 && std::chrono::steady_clock::now() < deadline)
      kubectl("apply --dry-run=server -f -", dha_yaml("probe", "probe"));
    ASSERT_GT(listings_, 0) << "the API server never called the webhook";
  }

  // As the operator mounts it: the claims come from a live list of the namespace's DHAs.
  void start_webhook() {
    server::ServerOptions options;
    options.name = "webhook";
    options.host = "127.0.0.1";
    options.port = webhook_port_;
    options.tls = server::TlsOptions{cert_dir_.path()};
    server::Router router;
    admission::mount_one_dha_per_target_webhook(router, {}, [this](const std::string& ns) {
      ++listings_;
      return admission::claims_of_list(client_->list_all(kube::resources::dhas(ns)).list);
    });
    webhook_ = std::make_unique<server::Server>(options, std::move(router));
    webhook_->start();
    webhook_port_ = webhook_->port();
  }

  // Through the Service, as the chart registers it (the embedded server maps it to the port),
  // or at `url_port` on loopback (kube-apiserver has no Service network here).
  static std::string webhook_configuration(const std::string& ca_pem, std::uint16_t url_port) {
    const std::string client =
        url_port == 0 ? std::string(R"("service":{"namespace":"cozy-db-autoscaler","name":"db-autoscaler",)"
                                    R"("path":"/validate-dha-target","port":443})")
                      : R"("url":"https://127.0.0.1:)" + std::to_string(url_port) + R"(/validate-dha-target")";
    return R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration",)"
           R"("metadata":{"name":"db-autoscaler-replicas-ownership"},)"
           R"("webhooks":[{"name":"target.autoscaling.cozystack.io","admissionReviewVersions":["v1"],)"
           R"("sideEffects":"None","failurePolicy":"Ignore","timeoutSeconds":5,)"
           R"("clientConfig":{)" +
           client + R"(,"caBundle":")" + base64(ca_pem) +
           R"("},"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":["autoscaling.cozystack.io"],)"
           R"("apiVersions":["v1alpha1"],"resources":["databasehorizontalautoscalers"],"scope":"Namespaced"}]}]})";
  }

  static rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    return d;
  }

  CommandResult kubectl(const std::string& args, const std::string& stdin_text = "") {
    return run("kubectl --kubeconfig " + kubeconfig_ + " " + args, stdin_text);
  }

  testing_pki::TempDir cert_dir_;
  testing_pki::TempDir work_dir_;
  std::string kubeconfig_;
  std::uint16_t webhook_port_ = 0;
  std::atomic<int> listings_{0};  // webhook calls so far
  std::unique_ptr<testing::TestCluster> cluster_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<server::Server> webhook_;
};

TEST_F(OneDhaPerTarget, ASecondDhaOnTheSameTargetIsRefused) {
  auto first = kubectl("apply -f -", dha_yaml("reads", "db"));
  ASSERT_EQ(first.exit_code, 0) << first.out;
  auto second = kubectl("apply -f -", dha_yaml("reads-too", "db"));
  EXPECT_NE(second.exit_code, 0) << second.out;
  EXPECT_NE(second.out.find("admission webhook \"target.autoscaling.cozystack.io\" denied the request: "
                            "Postgres/db is already scaled by another DatabaseHorizontalAutoscaler in this namespace"),
            std::string::npos)
      << second.out;
  EXPECT_EQ(kubectl("-n tenant-a get dha reads-too").exit_code, 1) << "the refused DHA must not exist";
  // Another database in the namespace is free.
  auto other = kubectl("apply -f -", dha_yaml("reads-too", "db2"));
  EXPECT_EQ(other.exit_code, 0) << other.out;
  // Nor can it be moved onto the claimed one.
  auto moved =
      kubectl("-n tenant-a patch dha reads-too --type merge -p '{\"spec\":{\"targetRef\":{\"name\":\"db\"}}}'");
  EXPECT_NE(moved.exit_code, 0) << moved.out;
  EXPECT_NE(moved.out.find("already scaled by another DatabaseHorizontalAutoscaler"), std::string::npos) << moved.out;
}

TEST_F(OneDhaPerTarget, TheHolderStaysEditableAndTheTargetIsFreeOnceItIsGone) {
  ASSERT_EQ(kubectl("apply -f -", dha_yaml("reads", "db")).exit_code, 0);
  auto edited = kubectl("-n tenant-a patch dha reads --type merge -p '{\"spec\":{\"maxReplicas\":6}}'");
  EXPECT_EQ(edited.exit_code, 0) << edited.out;
  ASSERT_EQ(kubectl("-n tenant-a delete dha reads").exit_code, 0);
  auto next = kubectl("apply -f -", dha_yaml("reads-too", "db"));
  EXPECT_EQ(next.exit_code, 0) << next.out;
}

}  // namespace
}  // namespace dha
