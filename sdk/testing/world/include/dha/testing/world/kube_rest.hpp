#pragma once

// The few Kubernetes API calls the world simulator makes, over libcurl. Deliberately tiny and
// independent of core/kube so the test kit installs with the SDK alone: one blocking request at
// a time, bearer token or client certificate, the server's CA from the kubeconfig.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace dha::testing::base {
class HttpClient;
}

namespace dha::testing::world {

struct KubeEndpoint {
  std::string server;  // https://127.0.0.1:6443 or http://...
  std::string token;
  std::string ca_pem;
  std::string client_certificate_pem;
  std::string client_key_pem;
  bool insecure_skip_tls_verify = false;

  // The current context of a kubeconfig file (certificate-authority[-data], token[-file],
  // client-certificate[-data]/client-key[-data], insecure-skip-tls-verify). Throws
  // std::invalid_argument with the file name and what is missing.
  static KubeEndpoint from_kubeconfig(const std::string& path);
};

class KubeRest {
 public:
  struct Response {
    long status = 0;
    std::string body;
  };

  explicit KubeRest(KubeEndpoint endpoint, std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~KubeRest();
  KubeRest(const KubeRest&) = delete;
  KubeRest& operator=(const KubeRest&) = delete;

  // `path` starts with /api or /apis. Throws std::runtime_error when no HTTP answer came (refused,
  // timeout, TLS failure); any HTTP status is returned for the caller to judge.
  Response get(const std::string& path);
  Response create(const std::string& path, std::string_view json);
  Response merge_patch(const std::string& path, std::string_view json);

 private:
  Response send(const char* method, const std::string& path, std::string_view body, const char* content_type);

  KubeEndpoint endpoint_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<base::HttpClient> client_;  // one reused connection: keep-alive to the API server
};

}  // namespace dha::testing::world
