// The fixture itself on both backends: identities authenticate with their kubeconfig, CRDs are
// served once installed, the audit view records who wrote what; on the real backend RBAC holds.
#include <rapidjson/document.h>

#include "real_kube.hpp"

namespace {

using dha::testing::KubeBackend;

class TestClusterTest : public ::testing::TestWithParam<KubeBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == KubeBackend::real) DHA_REQUIRE_REAL_KUBE();
    dha::testing::TestClusterOptions o;
    o.backend = GetParam();
    o.identities["tenant"] = {"tenant-user", {}, ""};
    o.identities["operator"] = dha::testing::service_account("cozy-db-autoscaler", "db-autoscaler");
    o.crd_paths = {std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
    cluster_ = dha::testing::start_test_cluster(o);
  }
  std::unique_ptr<dha::testing::TestCluster> cluster_;
};

TEST_P(TestClusterTest, IdentitiesCrdsAndTheAuditView) {
  EXPECT_EQ(cluster_->backend(), GetParam());
  EXPECT_EQ(cluster_->url().rfind("https://127.0.0.1:", 0), 0u) << cluster_->url();
  EXPECT_NE(cluster_->ca_pem().find("BEGIN CERTIFICATE"), std::string::npos);
  cluster_->clear_audit();
  const auto created = cluster_->request("operator", "POST", "/api/v1/namespaces",
                                         R"({"apiVersion":"v1","kind":"Namespace",)"
                                         R"("metadata":{"name":"tenant-a"}})");
  if (GetParam() == KubeBackend::real) {
    // A ServiceAccount with no binding may do nothing; the admin may.
    EXPECT_EQ(created.status, 403) << created.body;
    EXPECT_EQ(cluster_
                  ->request("admin", "POST", "/api/v1/namespaces",
                            R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"tenant-a"}})")
                  .status,
              201);
  } else {
    EXPECT_EQ(created.status, 201) << created.body;  // the embedded server has no RBAC
  }
  const auto listed = cluster_->request(
      "admin", "GET", "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/tenant-a/databasehorizontalautoscalers");
  EXPECT_EQ(listed.status, 200) << listed.body;

  bool saw_denied_or_created = false;
  for (int attempt = 0; attempt < 50 && !saw_denied_or_created; ++attempt) {
    for (const auto& e : cluster_->audit())
      if (e.method == "POST" && e.path == "/api/v1/namespaces" &&
          e.username == "system:serviceaccount:cozy-db-autoscaler:db-autoscaler" && e.status == created.status)
        saw_denied_or_created = true;
    if (!saw_denied_or_created) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(saw_denied_or_created) << "the audit view misses the ServiceAccount's create";
}

TEST_P(TestClusterTest, KubeconfigsWorkForKubectl) {
  const std::string command = "kubectl --kubeconfig " + cluster_->kubeconfig("tenant") + " get --raw /version 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  EXPECT_EQ(::pclose(pipe), 0) << out;
  EXPECT_NE(out.find("gitVersion"), std::string::npos) << out;
}

INSTANTIATE_TEST_SUITE_P(Backends, TestClusterTest, ::testing::Values(KubeBackend::embedded, KubeBackend::real),
                         [](const auto& info) { return std::string(dha::testing::to_string(info.param)); });

// Suites that share one control plane per process get it from process_test_cluster(): the
// first call starts it, later calls get the same one (their options are not applied).
TEST(ProcessTestCluster, TheFirstCallStartsItAndLaterCallsShareIt) {
  ASSERT_FALSE(dha::testing::process_test_cluster_started()) << "another test of this process started it";
  dha::testing::TestClusterOptions o;
  o.backend = KubeBackend::embedded;
  auto& first = dha::testing::process_test_cluster(o);
  EXPECT_TRUE(dha::testing::process_test_cluster_started());
  EXPECT_EQ(first.request("admin", "GET", "/api/v1/namespaces").status, 200);
  o.identities["late"] = {"late-user", {}, ""};
  auto& second = dha::testing::process_test_cluster(o);
  EXPECT_EQ(&second, &first);
  EXPECT_THROW(second.kubeconfig("late"), std::out_of_range);
}

}  // namespace
