#pragma once
// Where the cluster is and how to authenticate: built once at start by Config::load(flags).
//
// Sources, first match wins (the controller-runtime order):
//   1. flags.kubeconfig (--kubeconfig)
//   2. $KUBECONFIG (the first existing file of a ':'-separated list; files are not merged)
//   3. in-cluster: $KUBERNETES_SERVICE_HOST/PORT + the service-account token, CA and namespace
//   4. ~/.kube/config
// Explicit flags (server, token, token file, CA file, QPS/burst, timeouts) override what the
// source said. `insecure-skip-tls-verify: true` is refused unless allow_insecure is set.
// Exec plugins, auth providers and basic auth are not supported and are refused by name.

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dha::telemetry {
class Registry;
}

namespace dha::kube {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Supplies the bearer token for each request. Thread-safe.
class TokenSource {
 public:
  virtual ~TokenSource() = default;
  virtual std::string token() = 0;
};

class StaticToken final : public TokenSource {
 public:
  explicit StaticToken(std::string token) : token_(std::move(token)) {}
  std::string token() override { return token_; }

 private:
  std::string token_;
};

// A token file that is re-read when it changes (projected service-account tokens are rotated
// by the kubelet in place). The file is stat()ed on each call; it is read only when its
// modification time or size differ from the last read. A file that disappears keeps the last
// good token (the kubelet swaps it with a rename) and the error shows on the next change.
class FileToken final : public TokenSource {
 public:
  explicit FileToken(std::filesystem::path path);  // reads once; throws ConfigError if unreadable/empty
  std::string token() override;
  const std::filesystem::path& path() const { return path_; }

 private:
  void reload_locked();
  std::filesystem::path path_;
  std::mutex mu_;
  std::string token_;
  std::filesystem::file_time_type mtime_{};
  std::uintmax_t size_ = 0;
};

// Command-line overrides; empty/unset fields leave the loaded value alone.
struct ConfigFlags {
  std::string kubeconfig;
  std::string context;
  std::string server;
  std::string token;
  std::string token_file;
  std::string ca_file;
  std::optional<std::string> namespace_;
  bool allow_insecure = false;  // permit insecure-skip-tls-verify from the kubeconfig
  std::optional<double> qps;
  std::optional<int> burst;
  std::optional<std::chrono::milliseconds> connect_timeout;
  std::optional<std::chrono::milliseconds> request_timeout;
};

// Process environment seen by load(). Tests substitute their own; the default reads the real
// environment and the standard service-account directory.
struct Environment {
  std::function<std::optional<std::string>(const std::string&)> getenv;
  std::filesystem::path service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  static Environment process();
};

struct Config {
  std::string server;           // "https://10.0.0.1:443"; no trailing slash
  std::string ca_pem;           // PEM bundle to verify the server; empty = system CAs
  std::string client_cert_pem;  // client certificate auth (both or neither)
  std::string client_key_pem;
  std::shared_ptr<TokenSource> token;  // bearer token; null = none
  std::string tls_server_name;         // SNI / name to verify, when it differs from the host
  bool insecure_skip_tls_verify = false;
  std::string default_namespace = "default";  // from the context or the pod's namespace file
  std::string source;                         // human-readable: "kubeconfig /path (context x)" / "in-cluster"

  double qps = 50;  // client-side rate limit; <= 0 disables it
  int burst = 100;
  std::chrono::milliseconds connect_timeout{5000};
  std::chrono::milliseconds request_timeout{30000};  // total, per non-watch request
  std::string user_agent = "db-autoscaler";
  // Where every client built from this config counts its requests (rest_client_*); null = not
  // counted. Not part of a kubeconfig: the operator sets it after loading.
  telemetry::Registry* metrics = nullptr;

  // Same as load_config(): the entry point for the operator.
  static Config load(const ConfigFlags& flags, const Environment& env = Environment::process());
};

// Loads per the order above. Throws ConfigError with the file and field at fault.
Config load_config(const ConfigFlags& flags, const Environment& env = Environment::process());

// Parses kubeconfig text. Relative file references resolve against `base_dir`.
// `context` empty = current-context.
Config parse_kubeconfig(std::string_view yaml_text, const std::filesystem::path& base_dir, const std::string& context,
                        bool allow_insecure);

// The in-cluster configuration from the environment and the service-account directory.
Config in_cluster_config(const Environment& env);

// Strict RFC 4648 base64 (for *-data fields); throws ConfigError on bad input.
std::string base64_decode(std::string_view text);

}  // namespace dha::kube
