// A tenant's DHAs against the operator's shared state: the DHA cache, what a reconcile holds,
// the finalizer, the target webhook and the status writer, on the embedded API server with the
// chart's CRD.

#include "dha/admission/one_dha_per_target_webhook.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/informer.hpp"
#include "dha/kube/json.hpp"
#include "dha/server/http.hpp"
#include "dha/status_writer/status_update.hpp"
#include "dha/telemetry/registry.hpp"
#include "dha/testing/test_cluster.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <thread>

#include "host/self_metrics.hpp"
#include "operator/dha_cache_entry.hpp"
#include "pipeline/finalizer.hpp"
#include "pipeline/tenant_metadata.hpp"

namespace dha {
namespace {

using namespace std::chrono_literals;

rapidjson::Document parse(const std::string& text) { return kube::parse_json(text); }

// A DHA as a tenant may write it: `padding` bytes of annotation, `finalizers` foreign finalizers
// besides ours, labels and an owner reference.
std::string dha_json(const std::string& ns, const std::string& name, const std::string& target, std::size_t padding = 0,
                     int finalizers = 0) {
  std::string list = "\"" + std::string(pipeline::kFinalizer) + "\"";
  for (int i = 0; i < finalizers; ++i) list += ",\"tenant.example/f-" + std::to_string(i) + "\"";
  return R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
         R"("metadata":{"name":")" +
         name + R"(","namespace":")" + ns +
         R"(","labels":{"team":"x"},)"
         R"("annotations":{"padding":")" +
         std::string(padding, 'p') + R"("},"finalizers":[)" + list +
         "],"
         R"("ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"owner","uid":"u-1"}]},)"
         R"("spec":{"targetRef":{"kind":"Postgres","name":")" +
         target +
         R"("},"minReplicas":2,"maxReplicas":5,)"
         R"("metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}]}})";
}

std::string review(const std::string& ns, const std::string& name, const std::string& target) {
  const std::string object =
      R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
      R"("metadata":{"name":")" +
      name + R"(","namespace":")" + ns +
      R"("},)"
      R"("spec":{"targetRef":{"kind":"Postgres","name":")" +
      target + R"("}}})";
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-)" + name +
         R"(","kind":{"group":"autoscaling.cozystack.io","version":"v1alpha1","kind":"DatabaseHorizontalAutoscaler"},)"
         R"("resource":{"group":"autoscaling.cozystack.io","version":"v1alpha1","resource":"databasehorizontalautoscalers"},)"
         R"("name":")" +
         name + R"(","namespace":")" + ns +
         R"(","operation":"CREATE","userInfo":{"username":"anyone"},)"
         R"("object":)" +
         object + "}}";
}

template <typename F>
bool eventually(F f, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return f();
}

class TenantCache : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TestClusterOptions options;
    options.crd_paths = {DHA_CHART_CRD_DIR};
    options.backend = testing::KubeBackend::embedded;
    cluster_ = testing::start_test_cluster(options);
    kube::ConfigFlags flags;
    flags.kubeconfig = cluster_->kubeconfig("admin");
    client_ = std::make_unique<kube::Client>(kube::Config::load(flags));
    for (const char* ns : {"tenant-a", "tenant-b"})
      client_->create(
          kube::resources::namespaces(),
          parse(std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + ns + "\"}}"));
  }

  // The operator's DHA cache, as it configures it.
  std::unique_ptr<kube::Informer> start_dha_cache() {
    kube::InformerOptions o;
    o.transform = op::keep_what_the_operator_reads;
    auto informer = std::make_unique<kube::Informer>(*client_, kube::resources::dhas(), o);
    informer->start();
    EXPECT_TRUE(informer->wait_for_sync(10s));
    return informer;
  }

  void create_dha(const std::string& json) {
    client_->create(kube::resources::dhas(kube::namespace_of(parse(json))), parse(json));
  }

  std::size_t operator_api_requests() const {
    std::size_t n = 0;
    for (const auto& e : cluster_->audit())
      if (e.query.find("watch=") == std::string::npos) ++n;
    return n;
  }

  std::unique_ptr<testing::TestCluster> cluster_;
  std::unique_ptr<kube::Client> client_;
};

TEST_F(TenantCache, KeepsOfADhaOnlyWhatTheOperatorReads) {
  create_dha(dha_json("tenant-a", "fat", "db", 200 * 1024, 300));
  auto cache = start_dha_cache();
  ASSERT_TRUE(eventually([&] { return cache->get("tenant-a/fat") != nullptr; }, 10s));
  const auto cached = cache->get("tenant-a/fat");
  const std::string text = kube::to_json(*cached);
  EXPECT_LT(text.size(), 600u) << text;
  const auto fresh = client_->get(kube::resources::dhas("tenant-a").named("fat"));
  const auto text_at = [](const rapidjson::Value& obj, std::initializer_list<std::string_view> path) {
    const auto* v = kube::find_path(obj, path);
    return v == nullptr ? std::string("<absent>") : kube::to_json(*v);
  };
  for (const char* field : {"name", "namespace", "uid", "resourceVersion", "generation"})
    EXPECT_EQ(text_at(*cached, {"metadata", field}), text_at(fresh, {"metadata", field})) << field;
  EXPECT_NE(text_at(*cached, {"metadata", "uid"}), "<absent>");
  EXPECT_EQ(text_at(*cached, {"metadata", "finalizers"}), "[\"" + std::string(pipeline::kFinalizer) + "\"]");
  EXPECT_EQ(kube::string_at(*cached, {"spec", "targetRef", "kind"}), "Postgres");
  EXPECT_EQ(kube::string_at(*cached, {"spec", "targetRef", "name"}), "db");
  EXPECT_EQ(kube::string_at(*cached, {"spec", "targetRef", "apiGroup"}),
            kube::string_at(fresh, {"spec", "targetRef", "apiGroup"}));
  for (const char* gone : {"annotations", "labels", "ownerReferences", "managedFields"})
    EXPECT_EQ(kube::find_path(*cached, {"metadata", gone}), nullptr) << gone;
  EXPECT_EQ(kube::find_path(*cached, {"spec", "minReplicas"}), nullptr);
  EXPECT_EQ(kube::find_path(*cached, {"status"}), nullptr);
}

TEST_F(TenantCache, AnOversizedTargetFieldMakesTheEntryClaimNothing) {
  rapidjson::Document dha = parse(dha_json("tenant-a", "long", std::string(pipeline::kMaxTargetGroupOrName + 1, 'x')));
  op::keep_what_the_operator_reads(dha);
  EXPECT_EQ(kube::find_path(dha, {"spec"}), nullptr) << kube::to_json(dha);
  EXPECT_EQ(kube::name_of(dha), "long");
}

TEST_F(TenantCache, TargetReviewsAreAnsweredFromTheCacheWithoutAnApiRequest) {
  create_dha(dha_json("tenant-a", "reads", "db"));
  create_dha(dha_json("tenant-b", "billing", "billing-prod"));
  auto cache = start_dha_cache();
  ASSERT_TRUE(eventually([&] { return cache->size() == 2; }, 10s));
  server::Router router;
  admission::mount_one_dha_per_target_webhook(router, {},
                                              [&](const std::string& ns) { return op::claims_in_cache(*cache, ns); });
  auto post = [&](const std::string& body) {
    server::Request r;
    r.method = "POST";
    r.path = r.target = "/validate-dha-target";
    r.headers = {{"Content-Type", "application/json"}};
    r.body = body;
    return router.dispatch(r);
  };
  cluster_->clear_audit();
  constexpr int kReviews = 200;
  int denied = 0;
  for (int i = 0; i < kReviews; ++i) {
    const auto answer = post(review("tenant-a", "second-" + std::to_string(i), "db"));
    ASSERT_EQ(answer.status, 200) << answer.body;
    const auto doc = parse(answer.body);
    if (!kube::find_path(doc, {"response", "allowed"})->GetBool()) ++denied;
  }
  EXPECT_EQ(denied, kReviews);
  EXPECT_EQ(operator_api_requests(), 0u) << "API requests for " << kReviews << " reviews";

  // A review naming another tenant's namespace: denied (the same rule), but the answer names
  // no object of that namespace beyond what the caller sent.
  const auto foreign = post(review("tenant-b", "probe", "billing-prod"));
  EXPECT_EQ(foreign.body.find("billing\\\""), std::string::npos) << foreign.body;
  EXPECT_EQ(foreign.body.find("\"billing\""), std::string::npos) << foreign.body;
  // And a review of one namespace never answers from another's DHAs.
  const auto other_ns = parse(post(review("tenant-a", "x", "billing-prod")).body);
  EXPECT_TRUE(kube::find_path(other_ns, {"response", "allowed"})->GetBool());
}

TEST_F(TenantCache, AReconcileHoldsTheDhaWithoutTheTenantsMetadata) {
  create_dha(dha_json("tenant-a", "fat", "db", 200 * 1024, 300));
  const auto ref = kube::resources::dhas("tenant-a").named("fat");
  client_->patch_status(ref, R"({"status":{"currentReplicas":2,"desiredReplicas":3}})");
  const auto fresh = client_->get(ref);
  const auto held = pipeline::without_tenant_metadata(fresh);
  EXPECT_LT(kube::to_json(held).size(), 2048u) << kube::to_json(held).substr(0, 300);
  for (const char* gone : {"annotations", "labels", "ownerReferences", "managedFields"})
    EXPECT_EQ(kube::find_path(held, {"metadata", gone}), nullptr) << gone;
  EXPECT_EQ(kube::to_json(*kube::find_path(held, {"metadata", "finalizers"})),
            "[\"" + std::string(pipeline::kFinalizer) + "\"]");
  for (const char* kept : {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp"})
    EXPECT_EQ(kube::to_json(*kube::find_path(held, {"metadata", kept})),
              kube::to_json(*kube::find_path(fresh, {"metadata", kept})))
        << kept;
  EXPECT_EQ(kube::to_json(*kube::find_path(held, {"spec"})), kube::to_json(*kube::find_path(fresh, {"spec"})));
  EXPECT_EQ(kube::to_json(*kube::find_path(held, {"status"})), kube::to_json(*kube::find_path(fresh, {"status"})));
}

TEST_F(TenantCache, AddingTheFinalizerKeepsTheTenantsMetadata) {
  // What a reconcile holds lacks the tenant's fields: the finalizer is added to the DHA as it
  // is on the server, never by writing back what the reconcile holds.
  auto dha = parse(dha_json("tenant-a", "fat", "db", 100 * 1024, 3));
  auto& finalizers = dha["metadata"]["finalizers"];
  finalizers.Erase(finalizers.Begin());  // ours
  client_->create(kube::resources::dhas("tenant-a"), dha);
  const auto ref = kube::resources::dhas("tenant-a").named("fat");
  telemetry::Registry registry;
  op::SelfMetrics metrics(registry);
  const auto updated = pipeline::add_finalizer(*client_, metrics, ref);
  EXPECT_TRUE(pipeline::has_finalizer(updated));
  const auto after = client_->get(ref);
  EXPECT_EQ(kube::to_json(*kube::find_path(after, {"metadata", "finalizers"})),
            R"(["tenant.example/f-0","tenant.example/f-1","tenant.example/f-2",")" + std::string(pipeline::kFinalizer) +
                "\"]");
  EXPECT_EQ(kube::string_at(after, {"metadata", "annotations", "padding"}).size(), 100u * 1024);
  EXPECT_EQ(kube::string_at(after, {"metadata", "labels", "team"}), "x");
  EXPECT_NE(kube::find_path(after, {"metadata", "ownerReferences"}), nullptr);
}

TEST_F(TenantCache, AStatusWriteSendsTheStatusAloneAsAPatch) {
  create_dha(dha_json("tenant-a", "fat", "db", 100 * 1024));
  const auto ref = kube::resources::dhas("tenant-a").named("fat");
  client_->patch_status(ref, R"({"status":{"currentReplicas":2,"desiredReplicas":2,"summary":"old"}})");
  const auto read = client_->get(ref);
  telemetry::Registry registry;
  op::SelfMetrics metrics(registry);
  model::DhaStatus previous;
  model::DhaStatus next;
  next.current_replicas = 3;
  next.desired_replicas = 4;
  cluster_->clear_audit();
  ASSERT_TRUE(status::update_status(*client_, metrics, read, previous, next));
  const auto audit = cluster_->audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].method, "PATCH");
  EXPECT_EQ(audit[0].path,
            "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/tenant-a/databasehorizontalautoscalers/fat/status");
  EXPECT_LT(audit[0].body.size(), 1024u) << "the write carried more than the status: " << audit[0].body.substr(0, 200);
  const auto after = client_->get(ref);
  EXPECT_EQ(kube::find_path(after, {"status", "desiredReplicas"})->GetInt(), 4);
  EXPECT_EQ(kube::find_path(after, {"status", "summary"}), nullptr) << "a field the new status drops is removed";
  EXPECT_EQ(kube::string_at(after, {"metadata", "annotations", "padding"}).size(), 100u * 1024);

  // Written over a status someone else changed since the read: refused by the resourceVersion.
  client_->patch_status(ref, R"({"status":{"summary":"theirs"}})");
  next.desired_replicas = 5;
  EXPECT_FALSE(status::update_status(*client_, metrics, after, next, model::DhaStatus{}));
  EXPECT_EQ(kube::string_at(client_->get(ref), {"status", "summary"}), "theirs");
}

}  // namespace
}  // namespace dha
