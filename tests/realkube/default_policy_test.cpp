// The Adaptive policy is the default for new DHAs, the way Kubernetes changes a default: the
// CRD's schema sets behavior.policy on create, while the decision core still reads a spec without
// a policy as Windowed. On the real apiextensions server: a new DHA reads back Adaptive, and one
// stored before the upgrade, pinned as the upgrade notes say, keeps deciding exactly as before.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <functional>
#include <thread>

#include "dha/decide/decide.hpp"
#include "dha/model/spec.hpp"
#include "real_kube.hpp"

namespace {

constexpr const char* kCrd =
    "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/databasehorizontalautoscalers.autoscaling.cozystack.io";
constexpr const char* kDhas =
    "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/default/databasehorizontalautoscalers";

std::string dha(const std::string& name, const std::string& behavior) {
  return R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
         R"("metadata":{"name":")" +
         name +
         R"("},"spec":{"targetRef":{"kind":"Postgres","name":"db"},"minReplicas":2,"maxReplicas":8,)"
         R"("metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}])" +
         behavior + "}}";
}

std::string to_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return {buf.GetString(), buf.GetSize()};
}

rapidjson::Document parse(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.c_str());
  return d;
}

// The policy the server has for a DHA ("" when the field is absent).
std::string policy_of(const rapidjson::Document& d) {
  const auto& spec = d["spec"];
  if (!spec.HasMember("behavior") || !spec["behavior"].HasMember("policy")) return "";
  return spec["behavior"]["policy"].GetString();
}

// 8 replicas, load for 2 readers: Windowed steps down one replica, Adaptive to the need at once.
dha::decide::Decision decide_for(const rapidjson::Document& d) {
  const auto spec = dha::model::parse_spec(d["spec"]);
  dha::model::Observation obs;
  obs.current_replicas = 8;
  obs.available_replicas = 8;
  obs.primary_count = 1;
  obs.quorum_floor = 1;
  obs.metrics = {{"ReadConnections", 200.0}};
  dha::model::DecisionState state;
  state.last_converged_replicas = 8;
  return dha::decide::decide(spec, obs, state, 100000);
}

class DefaultPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DHA_REQUIRE_REAL_KUBE();
    dha::testing::TestClusterOptions o;
    o.backend = dha::testing::KubeBackend::real;
    o.crd_paths = {std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
    cluster_ = &dha::testing::process_test_cluster(o);
    ASSERT_EQ(cluster_->request("admin", "DELETE", kDhas).status, 200);
  }

  // Replaces the served CRD by `crd` and waits until a dry-run create shows `policy` defaulted
  // as `expected` ("" for no default): a CRD update takes effect a moment after it is accepted.
  void serve(rapidjson::Document& crd, const std::string& expected) {
    const auto current = parse(cluster_->request("admin", "GET", kCrd).body);
    crd["metadata"]["resourceVersion"].SetString(current["metadata"]["resourceVersion"].GetString(),
                                                 crd.GetAllocator());
    const auto put = cluster_->request("admin", "PUT", kCrd, to_json(crd));
    ASSERT_EQ(put.status, 200) << put.body;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string seen;
    while (std::chrono::steady_clock::now() < deadline) {
      const auto probe = cluster_->request("admin", "POST", std::string(kDhas) + "?dryRun=All", dha("probe", ""));
      if (probe.status == 201 && (seen = policy_of(parse(probe.body))) == expected) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    FAIL() << "the CRD update did not take effect: a new DHA still gets policy \"" << seen << "\"";
  }

  dha::testing::TestCluster* cluster_ = nullptr;
};

TEST_F(DefaultPolicyTest, ANewDhaGetsAdaptiveAndAnExplicitPolicyStays) {
  struct Case {
    const char* name;
    const char* behavior;
    const char* policy;
  };
  for (const Case& c : {Case{"bare", "", "Adaptive"},
                        Case{"tuned", R"(,"behavior":{"scaleDown":{"stabilizationWindowSeconds":900}})", "Adaptive"},
                        Case{"windowed", R"(,"behavior":{"policy":"Windowed"})", "Windowed"}}) {
    SCOPED_TRACE(c.name);
    const auto created = cluster_->request("admin", "POST", kDhas, dha(c.name, c.behavior));
    ASSERT_EQ(created.status, 201) << created.body;
    const auto read = parse(cluster_->request("admin", "GET", std::string(kDhas) + "/" + c.name).body);
    EXPECT_EQ(policy_of(read), c.policy);
  }
  const auto tuned = parse(cluster_->request("admin", "GET", std::string(kDhas) + "/tuned").body);
  EXPECT_EQ(tuned["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"].GetInt(), 900);
  EXPECT_EQ(decide_for(tuned).desired_replicas, 3);  // Adaptive: 200 / 150 x 1/0.88 -> 2 readers + primary
}

TEST_F(DefaultPolicyTest, ADhaStoredBeforeTheUpgradeKeepsDecidingAsBefore) {
  auto upgraded = parse(cluster_->request("admin", "GET", kCrd).body);
  ASSERT_TRUE(upgraded.IsObject());
  // The CRD as it was before Adaptive became the default: no default for behavior or its policy.
  rapidjson::Document before;
  before.CopyFrom(upgraded, before.GetAllocator());
  auto& behavior =
      before["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["behavior"];
  ASSERT_TRUE(behavior.RemoveMember("default"));
  ASSERT_TRUE(behavior["properties"]["policy"].RemoveMember("default"));
  serve(before, "");

  ASSERT_EQ(cluster_->request("admin", "POST", kDhas, dha("old", R"(,"behavior":{"tolerance":0})")).status, 201);
  const auto stored = parse(cluster_->request("admin", "GET", std::string(kDhas) + "/old").body);
  ASSERT_EQ(policy_of(stored), "");
  const auto as_before = decide_for(stored);
  EXPECT_EQ(as_before.desired_replicas, 7);  // Windowed: one step down
  // The upgrade notes' step: write down the policy a DHA without one has been running.
  const auto pinned =
      cluster_->request("admin", "PATCH", std::string(kDhas) + "/old", R"({"spec":{"behavior":{"policy":"Windowed"}}})",
                        "application/merge-patch+json");
  ASSERT_EQ(pinned.status, 200) << pinned.body;
  // One left unpinned: the server applies a schema default when it reads a stored object, too.
  ASSERT_EQ(cluster_->request("admin", "POST", kDhas, dha("unpinned", "")).status, 201);

  serve(upgraded, "Adaptive");
  const auto old = parse(cluster_->request("admin", "GET", std::string(kDhas) + "/old").body);
  EXPECT_EQ(policy_of(old), "Windowed");
  const auto after = decide_for(old);
  EXPECT_EQ(after.desired_replicas, as_before.desired_replicas);
  EXPECT_EQ(after.reason, as_before.reason);
  EXPECT_EQ(after.trace.size(), as_before.trace.size());
  const auto unpinned = parse(cluster_->request("admin", "GET", std::string(kDhas) + "/unpinned").body);
  EXPECT_EQ(policy_of(unpinned), "Adaptive") << "why the upgrade notes pin existing DHAs first";
}

}  // namespace
