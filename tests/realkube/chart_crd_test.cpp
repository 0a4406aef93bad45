// The chart's DHA CRD on the real apiextensions server: its structural schema is accepted,
// defaults are applied, the CEL rule and the bounds refuse bad objects, and the printer
// columns are what `kubectl get dha` shows.
#include <rapidjson/document.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <iterator>
#include <sstream>
#include <vector>

#include "real_kube.hpp"

namespace {

using dha::testing::KubeBackend;

constexpr const char* kDhas =
    "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/default/databasehorizontalautoscalers";

std::string dha(const std::string& name, int min, int max, const std::string& extra = "") {
  return R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
         R"("metadata":{"name":")" +
         name + R"("},"spec":{"targetRef":{"kind":"Postgres","name":"db"},"minReplicas":)" + std::to_string(min) +
         R"(,"maxReplicas":)" + std::to_string(max) +
         R"(,"metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}])" + extra + "}}";
}

class ChartCrdTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DHA_REQUIRE_REAL_KUBE();
    dha::testing::TestClusterOptions o;
    o.backend = KubeBackend::real;
    o.crd_paths = {std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
    // One control plane for the suite (registered as one process); each test starts without DHAs.
    cluster_ = &dha::testing::process_test_cluster(o);
    const auto cleared = cluster_->request("admin", "DELETE", kDhas);
    ASSERT_EQ(cleared.status, 200) << cleared.body;
  }
  dha::testing::TestCluster* cluster_ = nullptr;
};

TEST_F(ChartCrdTest, TheSchemaIsStructuralAndEstablished) {
  const auto r = cluster_->request(
      "admin", "GET",
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databasehorizontalautoscalers.autoscaling.cozystack.io");
  ASSERT_EQ(r.status, 200) << r.body;
  rapidjson::Document crd;
  crd.Parse(r.body.c_str());
  for (const auto& c : crd["status"]["conditions"].GetArray()) {
    const std::string type = c["type"].GetString(), status = c["status"].GetString();
    if (type == "NonStructuralSchema" || type == "KubernetesAPIApprovalPolicyConformant") {
      EXPECT_NE(status, "True") << type << ": " << c["message"].GetString();
    }
    if (type == "Established" || type == "NamesAccepted") {
      EXPECT_EQ(status, "True") << type;
    }
  }
}

TEST_F(ChartCrdTest, DefaultsAreAppliedByTheServer) {
  const auto created = cluster_->request("admin", "POST", kDhas, dha("db", 2, 4, R"(,"behavior":{},"constraints":{})"));
  ASSERT_EQ(created.status, 201) << created.body;
  rapidjson::Document d;
  d.Parse(created.body.c_str());
  const auto& spec = d["spec"];
  EXPECT_STREQ(spec["targetRef"]["apiGroup"].GetString(), "apps.cozystack.io");
  EXPECT_FALSE(spec["dryRun"].GetBool());
  EXPECT_TRUE(spec["constraints"]["respectQuorum"].GetBool());
  EXPECT_EQ(spec["behavior"]["tolerance"].GetDouble(), 0.0);
}

TEST_F(ChartCrdTest, TheCelRuleAndTheBoundsRefuseBadObjects) {
  struct Case {
    const char* name;
    std::string body;
    const char* message;
  };
  const Case cases[] = {
      {"max below min", dha("inverted", 4, 3), "maxReplicas must be greater than or equal to minReplicas"},
      {"min below two", dha("one", 1, 3), "spec.minReplicas"},
      {"unknown metric",
       R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
       R"("metadata":{"name":"m"},"spec":{"targetRef":{"kind":"Postgres","name":"db"},)"
       R"("minReplicas":2,)"
       R"("maxReplicas":3,"metrics":[{"type":"Writes","target":{"averageValue":"1"}}]}})",
       "spec.metrics[0].type"},
      {"no metrics",
       R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
       R"("metadata":{"name":"none"},"spec":{"targetRef":{"kind":"Postgres","name":"db"},)"
       R"("minReplicas":2,)"
       R"("maxReplicas":3}})",
       "spec.metrics: Required value"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = cluster_->request("admin", "POST", kDhas, c.body);
    EXPECT_EQ(r.status, 422) << r.body;
    EXPECT_NE(r.body.find(c.message), std::string::npos) << r.body;
  }
}

TEST_F(ChartCrdTest, PrinterColumnsAreServedAsATable) {
  ASSERT_EQ(cluster_->request("admin", "POST", kDhas, dha("db", 2, 6)).status, 201);
  // kubectl asks for a Table (Accept: as=Table) and prints the CRD's printer columns.
  const std::string command = "kubectl --kubeconfig " + cluster_->kubeconfig("admin") + " get dha -n default 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) out += buf.data();
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  const std::string header = out.substr(0, out.find('\n'));
  std::istringstream words(header);
  std::vector<std::string> columns{std::istream_iterator<std::string>(words), {}};
  const std::vector<std::string> expected{"NAME",    "TARGET",  "METRICS", "MIN", "MAX",
                                          "CURRENT", "DESIRED", "REASON",  "AGE"};
  EXPECT_EQ(columns, expected) << out;
  // No operator runs here, so the status-backed columns are empty: the row is name, min, max, age.
  const std::string row = out.substr(out.find('\n') + 1);
  std::istringstream cells(row.substr(0, row.find('\n')));
  const std::vector<std::string> values{std::istream_iterator<std::string>(cells), {}};
  ASSERT_EQ(values.size(), 4u) << out;
  EXPECT_EQ(values[0], "db");
  EXPECT_EQ(values[1], "2");
  EXPECT_EQ(values[2], "6");
}

}  // namespace
