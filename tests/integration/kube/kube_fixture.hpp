#pragma once
// Starts the embedded API server (TLS, two token identities, the Widget fixture CRD) and builds
// a kube Config for it through the same path the operator uses: a kubeconfig file + Config::load.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/api_server.hpp"

#ifndef DHA_KUBE_TEST_CRDS
#error "DHA_KUBE_TEST_CRDS must name the fixture CRD directory"
#endif

namespace dha::kube::test {

inline constexpr const char* kAdminToken = "admin-token";
inline constexpr const char* kAliceToken = "alice-token";

inline ResourceRef widgets(std::string ns = "default") { return {"test.dha.io", "v1", "widgets", std::move(ns), {}}; }
inline ResourceRef configmaps(std::string ns = "default") { return {"", "v1", "configmaps", std::move(ns), {}}; }

inline rapidjson::Document widget(const std::string& name, int replicas, const std::string& ns = "default") {
  return parse_json(R"({"apiVersion":"test.dha.io/v1","kind":"Widget","metadata":{"name":")" + name + R"(","namespace":")" + ns +
                    R"("},"spec":{"replicas":)" + std::to_string(replicas) + "}}");
}

inline rapidjson::Document configmap(const std::string& name, const std::string& ns = "default", const std::string& labels_json = "{}") {
  return parse_json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","namespace":")" + ns +
                    R"(","labels":)" + labels_json + R"(},"data":{"k":"v"}})");
}

// Polls `cond` until true or the timeout; tests assert on the return value.
inline bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
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

inline dha::testing::ApiServerOptions default_server_options() {
  dha::testing::ApiServerOptions o;
  o.tls = true;
  o.tokens[kAdminToken] = {"admin", {"system:masters"}, "uid-admin"};
  o.tokens[kAliceToken] = {"alice", {"tenants"}, "uid-alice"};
  o.crd_dirs = {DHA_KUBE_TEST_CRDS};
  return o;
}

class KubeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<dha::testing::ApiServer>(server_options());
    server_->start();
    client_ = std::make_unique<Client>(config_for(kAdminToken));
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->stop();
  }

  virtual dha::testing::ApiServerOptions server_options() { return default_server_options(); }

  // Like the real server, namespaced objects need their Namespace first.
  void ensure_namespace(const std::string& ns) {
    if (client_->get_if_exists(resources::namespaces().named(ns))) return;
    client_->create(resources::namespaces(), parse_json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})"));
  }

  // Config as the operator would load it: kubeconfig written by the server, then Config::load.
  Config config_for(const std::string& token, double qps = 0) {
    const auto path = dir_.path() / ("kubeconfig-" + token);
    server_->write_kubeconfig(path.string(), token);
    ConfigFlags flags;
    flags.kubeconfig = path.string();
    flags.qps = qps;
    flags.request_timeout = std::chrono::seconds(10);
    return Config::load(flags);
  }

  TempDir dir_;
  std::unique_ptr<dha::testing::ApiServer> server_;
  std::unique_ptr<Client> client_;
};

}  // namespace dha::kube::test
