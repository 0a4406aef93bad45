#pragma once
// Starts a Kubernetes API server through dha::testing::TestCluster (TLS, two token identities,
// the Widget fixture CRD) and builds a kube Config for it through the same path the operator
// uses: a kubeconfig file + Config::load.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/real_kube_skip.hpp"
#include "dha/testing/test_cluster.hpp"

#ifndef DHA_KUBE_TEST_CRDS
#error "DHA_KUBE_TEST_CRDS must name the fixture CRD directory"
#endif

namespace dha::kube::test {

// Identities: "admin" (system:masters) and "alice" (group tenants, no RBAC binding on a real server).
inline constexpr const char* kAdmin = "admin";
inline constexpr const char* kAlice = "alice";

inline ResourceRef widgets(std::string ns = "default") { return {"test.dha.io", "v1", "widgets", std::move(ns), {}}; }
inline ResourceRef configmaps(std::string ns = "default") { return {"", "v1", "configmaps", std::move(ns), {}}; }

inline rapidjson::Document widget(const std::string& name, int replicas, const std::string& ns = "default") {
  return parse_json(R"({"apiVersion":"test.dha.io/v1","kind":"Widget","metadata":{"name":")" + name +
                    R"(","namespace":")" + ns + R"("},"spec":{"replicas":)" + std::to_string(replicas) + "}}");
}

inline rapidjson::Document configmap(const std::string& name, const std::string& ns = "default",
                                     const std::string& labels_json = "{}") {
  return parse_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","namespace":")" + ns +
                    R"(","labels":)" + labels_json + R"(},"data":{"k":"v"}})");
}

// Polls `cond` until true or the timeout; tests assert on the return value.
inline bool eventually(const std::function<bool()>& cond,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dha-kube-it-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A test that drives the embedded server in a way a real kube-apiserver cannot be driven here
// (fault injection, stopping it in place, its history and bookmark settings): skipped with the
// reason on the real backend, and left out of the realkube registration.
#define DHA_EMBEDDED_ONLY(why)                                  \
  if (server_ == nullptr) {                                     \
    GTEST_SKIP() << "needs the embedded API server: " << (why); \
  }

// The kube client against a Kubernetes API server: the embedded one (one per test), or with
// DHA_TEST_KUBE=real a real kube-apiserver shared by every test of the process (it takes ~10 s
// to start). On the shared one each test after the first starts from empty namespaces: what
// the tests create (ConfigMaps, Widgets, Events, Leases) is deleted first.
class KubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dha::testing::TestClusterOptions o;
    o.identities[kAlice] = {"alice", {"tenants"}, "uid-alice"};
    o.crd_paths = {DHA_KUBE_TEST_CRDS};
    o.embedded = server_options();
    o.backend = dha::testing::kube_backend_from_environment();
    if (o.backend == dha::testing::KubeBackend::real) {
      const std::string missing = dha::testing::real_kube_unavailable_reason();
      if (!missing.empty()) {
        if (!dha::testing::real_kube_may_be_skipped()) FAIL() << missing;
        GTEST_SKIP() << missing;
      }
      const bool shared = dha::testing::process_test_cluster_started();
      cluster_ = &dha::testing::process_test_cluster(o);
      if (shared) delete_test_objects();
    } else {
      own_cluster_ = dha::testing::start_test_cluster(o);
      cluster_ = own_cluster_.get();
    }
    server_ = cluster_->embedded_server();
    client_ = std::make_unique<Client>(config_for(kAdmin));
  }
  void TearDown() override {
    client_.reset();
    server_ = nullptr;
    own_cluster_.reset();
  }

  // The embedded server's options (tokens and CRDs come from the fixture).
  virtual dha::testing::ApiServerOptions server_options() { return {}; }

  // Like the real server, namespaced objects need their Namespace first.
  void ensure_namespace(const std::string& ns) {
    if (client_->get_if_exists(resources::namespaces().named(ns))) return;
    client_->create(resources::namespaces(),
                    parse_json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})"));
  }

  // Config as the operator would load it: the identity's kubeconfig, then Config::load.
  Config config_for(const std::string& identity, double qps = 0) { return load(cluster_->kubeconfig(identity), qps); }
  // The same through a relay on loopback `port` (tcp_proxy.hpp): a test takes the server away
  // from this client (proxy.down()) on either backend, without stopping it.
  Config config_via(std::uint16_t port, const std::string& identity = kAdmin) {
    Config c = config_for(identity);
    c.server = "https://127.0.0.1:" + std::to_string(port);
    return c;
  }
  std::uint16_t server_port() const {
    const std::string url = cluster_->url();
    return static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  }
  // The same for a bearer token the server may not know.
  Config config_for_token(const std::string& token) {
    const auto ca = dir_.path() / "ca.crt";
    std::ofstream(ca) << cluster_->ca_pem();
    const auto path = dir_.path() / ("kubeconfig-token-" + token);
    std::ofstream(path) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                        << "clusters:\n- name: s\n  cluster:\n    server: " << cluster_->url()
                        << "\n    certificate-authority: " << ca.string() << "\n"
                        << "contexts:\n- name: c\n  context: {cluster: s, user: u}\n"
                        << "users:\n- name: u\n  user: {token: " << token << "}\n";
    return load(path.string(), 0);
  }
  // Installs a CRD given as YAML text and waits until it is served.
  void install_crd(const std::string& yaml) {
    const auto path = dir_.path() / "crd.yaml";
    std::ofstream(path) << yaml;
    cluster_->install_crds({path.string()});
  }

  TempDir dir_;
  dha::testing::TestCluster* cluster_ = nullptr;
  dha::testing::ApiServer* server_ = nullptr;  // the embedded server; nullptr on the real one
  std::unique_ptr<Client> client_;

 private:
  static Config load(const std::string& kubeconfig, double qps) {
    ConfigFlags flags;
    flags.kubeconfig = kubeconfig;
    flags.qps = qps;
    flags.request_timeout = std::chrono::seconds(10);
    return Config::load(flags);
  }
  // Without a namespace controller a Namespace never finishes deleting: the namespaces stay,
  // their objects go. The API server's own (kube-system and co.) are left alone.
  void delete_test_objects() {
    const auto namespaces = cluster_->request("admin", "GET", "/api/v1/namespaces");
    const auto list = parse_json(namespaces.body);
    for (const auto& item : list["items"].GetArray()) {
      const std::string ns = name_of(item);
      if (ns.rfind("kube-", 0) == 0) continue;
      for (const std::string& collection :
           {"/api/v1/namespaces/" + ns + "/configmaps", "/api/v1/namespaces/" + ns + "/events",
            "/apis/coordination.k8s.io/v1/namespaces/" + ns + "/leases",
            "/apis/test.dha.io/v1/namespaces/" + ns + "/widgets"}) {
        const auto r = cluster_->request("admin", "DELETE", collection);
        if (r.status != 200)
          throw std::runtime_error("DELETE " + collection + ": " + std::to_string(r.status) + " " + r.body);
      }
    }
    const auto r = cluster_->request(
        "admin", "DELETE",
        "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/db-autoscaler.autoscaling.cozystack.io");
    if (r.status != 200 && r.status != 404) throw std::runtime_error("deleting the test Lease: " + r.body);
  }

  std::unique_ptr<dha::testing::TestCluster> own_cluster_;
};

}  // namespace dha::kube::test
