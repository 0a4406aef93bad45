#include "scenario_cleanup.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "chart_rbac.hpp"
#include "deadline_scale.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

using namespace std::chrono_literals;

void expect_done(const testing::KubeResponse& r, const std::string& what) {
  // 404: never created in this test (or the kind is not installed).
  if (r.status != 200 && r.status != 202 && r.status != 404)
    throw std::runtime_error(what + ": " + std::to_string(r.status) + " " + r.error + " " + r.body);
}

std::vector<std::string> names_in(const std::string& list_body) {
  rapidjson::Document doc;
  doc.Parse(list_body.c_str());
  std::vector<std::string> names;
  if (!doc.IsObject() || !doc.HasMember("items") || !doc["items"].IsArray()) return names;
  for (const auto& item : doc["items"].GetArray()) names.emplace_back(item["metadata"]["name"].GetString());
  return names;
}

}  // namespace

void create_namespace_if_missing(const testing::TestCluster& cluster, const std::string& namespace_json) {
  const auto r = cluster.request("admin", "POST", "/api/v1/namespaces", namespace_json);
  if (r.status != 201 && r.status != 409)
    throw std::runtime_error("creating a namespace: " + std::to_string(r.status) + " " + r.error + " " + r.body);
}

void clear_scenario_objects(const testing::TestCluster& cluster) {
  const std::string ns = kNamespace;
  const std::string dhas =
      "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/" + ns + "/databasehorizontalautoscalers";
  const auto listed = cluster.request("admin", "GET", dhas);
  expect_done(listed, "listing DHAs");
  for (const auto& name : names_in(listed.body))
    expect_done(cluster.request("admin", "PATCH", dhas + "/" + name, R"({"metadata":{"finalizers":null}})",
                                "application/merge-patch+json"),
                "releasing DHA " + name);
  const std::vector<std::string> collections{
      dhas,
      "/apis/apps.cozystack.io/v1alpha1/namespaces/" + ns + "/postgreses",
      "/apis/cozystack.io/v1alpha1/namespaces/" + ns + "/workloadmonitors",
      "/apis/postgresql.cnpg.io/v1/namespaces/" + ns + "/clusters",
      "/apis/helm.toolkit.fluxcd.io/v2/namespaces/" + ns + "/helmreleases",
      "/api/v1/namespaces/" + ns + "/resourcequotas",
      "/api/v1/namespaces/" + ns + "/events",
      std::string("/apis/coordination.k8s.io/v1/namespaces/") + kReleaseNamespace + "/leases",
      "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/test:helmreleases",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/test:helmreleases"};
  for (const auto& path : collections) expect_done(cluster.request("admin", "DELETE", path), "deleting " + path);
  const auto deadline = std::chrono::steady_clock::now() + testsupport::scaled_deadline(30s);
  while (!names_in(cluster.request("admin", "GET", dhas).body).empty()) {
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("DHAs of an earlier test are still there");
    std::this_thread::sleep_for(100ms);
  }
}

}  // namespace dha::optest
