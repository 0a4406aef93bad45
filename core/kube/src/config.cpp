#include "dha/kube/config.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace dha::kube {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path, std::string_view what) {
  // A FIFO or device would block the open or the read forever (the process would never start,
  // nor say why); a directory opens but reads as empty. Only regular files (or links to them,
  // as in mounted Secrets) are credentials.
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!ec && fs::exists(st) && !fs::is_regular_file(st)) {
    throw ConfigError(fmt::format("cannot read {} '{}': not a regular file", what, path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("cannot read {} '{}'", what, path.string()));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

fs::path resolve(const fs::path& base_dir, const std::string& file) {
  fs::path p(file);
  return p.is_absolute() ? p : base_dir / p;
}

std::string scalar(const YAML::Node& node, const char* key) {
  const YAML::Node v = node[key];
  if (!v) return {};
  if (!v.IsScalar()) throw ConfigError(fmt::format("kubeconfig: '{}' must be a string", key));
  return v.as<std::string>();
}

bool boolean(const YAML::Node& node, const char* key) {
  const YAML::Node v = node[key];
  if (!v) return false;
  try {
    return v.as<bool>();
  } catch (const YAML::Exception&) {
    throw ConfigError(fmt::format("kubeconfig: '{}' must be true or false", key));
  }
}

// Finds `name` in a kubeconfig list of {name, <field>: {...}} entries.
YAML::Node named_entry(const YAML::Node& root, const char* list, const char* field, const std::string& name) {
  const YAML::Node items = root[list];
  if (items && !items.IsSequence()) throw ConfigError(fmt::format("kubeconfig: '{}' must be a list", list));
  if (items) {
    for (const auto& item : items) {
      if (item.IsMap() && scalar(item, "name") == name) {
        const YAML::Node body = item[field];
        if (!body || !body.IsMap())
          throw ConfigError(fmt::format("kubeconfig: {} '{}' has no '{}' map", list, name, field));
        return body;
      }
    }
  }
  throw ConfigError(fmt::format("kubeconfig: no entry named '{}' in '{}'", name, list));
}

// "data" field (base64) or "file" field (path); data wins, like client-go.
std::string data_or_file(const YAML::Node& node, const char* data_key, const char* file_key, const fs::path& base_dir) {
  if (const std::string data = scalar(node, data_key); !data.empty()) {
    try {
      return base64_decode(data);
    } catch (const ConfigError& e) {
      throw ConfigError(fmt::format("kubeconfig: '{}': {}", data_key, e.what()));
    }
  }
  if (const std::string file = scalar(node, file_key); !file.empty())
    return read_file(resolve(base_dir, file), file_key);
  return {};
}

std::string strip_trailing_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

FileToken::FileToken(fs::path path) : path_(std::move(path)) {
  std::lock_guard lock(mu_);
  reload_locked();
  if (token_.empty()) throw ConfigError(fmt::format("token file '{}' is empty", path_.string()));
}

void FileToken::reload_locked() {
  std::error_code ec;
  const auto mtime = fs::last_write_time(path_, ec);
  if (ec) {
    if (token_.empty()) throw ConfigError(fmt::format("cannot stat token file '{}': {}", path_.string(), ec.message()));
    return;  // keep the last good token across a rename-swap
  }
  const auto size = fs::file_size(path_, ec);
  if (ec) return;
  if (!token_.empty() && mtime == mtime_ && size == size_) return;
  std::string fresh;
  try {
    fresh = trim(read_file(path_, "token file"));
  } catch (const ConfigError&) {
    if (token_.empty()) throw;
    return;
  }
  if (fresh.empty()) return;  // caught mid-write; the next call sees the full file
  token_ = std::move(fresh);
  mtime_ = mtime;
  size_ = size;
}

std::string FileToken::token() {
  std::lock_guard lock(mu_);
  reload_locked();
  return token_;
}

Environment Environment::process() {
  Environment env;
  env.getenv = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
  return env;
}

std::string base64_decode(std::string_view text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == ' ' || c == '\t') continue;  // YAML folding may wrap long values
    clean.push_back(c);
  }
  if (clean.size() % 4 != 0) throw ConfigError("invalid base64: length is not a multiple of 4");
  std::string out;
  out.reserve(clean.size() / 4 * 3);
  for (std::size_t i = 0; i < clean.size(); i += 4) {
    std::array<int, 4> v{};
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = clean[i + j];
      if (c == '=') {
        // Padding only in the last quantum, only in the last two positions, and contiguous.
        if (i + 4 != clean.size() || j < 2) throw ConfigError("invalid base64: misplaced '='");
        ++pad;
        v[j] = 0;
      } else {
        if (pad > 0) throw ConfigError("invalid base64: data after '='");
        v[j] = value(c);
        if (v[j] < 0) throw ConfigError(fmt::format("invalid base64: unexpected character '{}'", c));
      }
    }
    const unsigned n = (unsigned(v[0]) << 18) | (unsigned(v[1]) << 12) | (unsigned(v[2]) << 6) | unsigned(v[3]);
    out.push_back(char((n >> 16) & 0xff));
    if (pad < 2) out.push_back(char((n >> 8) & 0xff));
    if (pad < 1) out.push_back(char(n & 0xff));
  }
  return out;
}

Config parse_kubeconfig(std::string_view yaml_text, const fs::path& base_dir, const std::string& context,
                        bool allow_insecure) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw ConfigError(fmt::format("kubeconfig: not valid YAML: {}", e.what()));
  }
  if (!root.IsMap()) throw ConfigError("kubeconfig: top level must be a map");

  const std::string context_name = context.empty() ? scalar(root, "current-context") : context;
  if (context_name.empty()) throw ConfigError("kubeconfig: no current-context and no context given");
  const YAML::Node ctx = named_entry(root, "contexts", "context", context_name);
  const std::string cluster_name = scalar(ctx, "cluster");
  if (cluster_name.empty()) throw ConfigError(fmt::format("kubeconfig: context '{}' names no cluster", context_name));
  const YAML::Node cluster = named_entry(root, "clusters", "cluster", cluster_name);

  Config cfg;
  cfg.source = fmt::format("kubeconfig (context {})", context_name);
  cfg.server = strip_trailing_slash(scalar(cluster, "server"));
  if (cfg.server.empty()) throw ConfigError(fmt::format("kubeconfig: cluster '{}' has no server", cluster_name));
  if (cfg.server.rfind("https://", 0) != 0 && cfg.server.rfind("http://", 0) != 0)
    throw ConfigError(fmt::format("kubeconfig: server '{}' must start with https:// or http://", cfg.server));
  cfg.ca_pem = data_or_file(cluster, "certificate-authority-data", "certificate-authority", base_dir);
  cfg.tls_server_name = scalar(cluster, "tls-server-name");
  cfg.insecure_skip_tls_verify = boolean(cluster, "insecure-skip-tls-verify");
  if (cfg.insecure_skip_tls_verify && !allow_insecure)
    throw ConfigError(
        fmt::format("kubeconfig: cluster '{}' sets insecure-skip-tls-verify; refusing to talk to an unverified server "
                    "(pass the allow-insecure option to override)",
                    cluster_name));
  if (const std::string ns = scalar(ctx, "namespace"); !ns.empty()) cfg.default_namespace = ns;

  if (const std::string user_name = scalar(ctx, "user"); !user_name.empty()) {
    const YAML::Node user = named_entry(root, "users", "user", user_name);
    for (const char* unsupported : {"exec", "auth-provider", "username", "password"}) {
      if (user[unsupported])
        throw ConfigError(
            fmt::format("kubeconfig: user '{}' uses '{}', which is not supported (use a token or a client certificate)",
                        user_name, unsupported));
    }
    // Impersonation would need Impersonate-* headers on every request; ignoring it would make
    // the operator act as the credentials' own identity while the kubeconfig says otherwise.
    for (const char* impersonation : {"as", "as-uid", "as-groups", "as-user-extra"}) {
      if (user[impersonation])
        throw ConfigError(
            fmt::format("kubeconfig: user '{}' sets '{}' (impersonation), which is not supported; remove it, or use "
                        "credentials of the identity to act as",
                        user_name, impersonation));
    }
    if (const std::string token = scalar(user, "token"); !token.empty()) {
      cfg.token = std::make_shared<StaticToken>(token);
    } else if (const std::string file = scalar(user, "tokenFile"); !file.empty()) {
      cfg.token = std::make_shared<FileToken>(resolve(base_dir, file));
    }
    cfg.client_cert_pem = data_or_file(user, "client-certificate-data", "client-certificate", base_dir);
    cfg.client_key_pem = data_or_file(user, "client-key-data", "client-key", base_dir);
    if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty())
      throw ConfigError(fmt::format(
          "kubeconfig: user '{}' has a client certificate without a key, or a key without a certificate", user_name));
  }
  return cfg;
}

Config in_cluster_config(const Environment& env) {
  const auto host = env.getenv("KUBERNETES_SERVICE_HOST");
  const auto port = env.getenv("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty())
    throw ConfigError("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  Config cfg;
  cfg.source = "in-cluster";
  // An IPv6 service address needs brackets in a URL.
  const bool ipv6 = host->find(':') != std::string::npos;
  cfg.server = ipv6 ? fmt::format("https://[{}]:{}", *host, *port) : fmt::format("https://{}:{}", *host, *port);
  cfg.token = std::make_shared<FileToken>(env.service_account_dir / "token");
  cfg.ca_pem = read_file(env.service_account_dir / "ca.crt", "service-account CA");
  std::error_code ec;
  if (fs::exists(env.service_account_dir / "namespace", ec)) {
    const std::string ns = trim(read_file(env.service_account_dir / "namespace", "service-account namespace"));
    if (!ns.empty()) cfg.default_namespace = ns;
  }
  return cfg;
}

namespace {

Config load_kubeconfig_file(const fs::path& path, const ConfigFlags& flags) {
  Config cfg = parse_kubeconfig(read_file(path, "kubeconfig"), path.parent_path(), flags.context, flags.allow_insecure);
  cfg.source = fmt::format("kubeconfig {} ({})", path.string(), cfg.source);
  return cfg;
}

Config load_from_source(const ConfigFlags& flags, const Environment& env) {
  if (!flags.kubeconfig.empty()) return load_kubeconfig_file(flags.kubeconfig, flags);
  if (const auto list = env.getenv("KUBECONFIG"); list && !list->empty()) {
    std::string_view rest = *list;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string entry(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
      std::error_code ec;
      if (!entry.empty() && fs::exists(entry, ec)) return load_kubeconfig_file(entry, flags);
    }
    throw ConfigError(fmt::format("$KUBECONFIG='{}' names no existing file", *list));
  }
  if (const auto host = env.getenv("KUBERNETES_SERVICE_HOST"); host && !host->empty()) return in_cluster_config(env);
  if (const auto home = env.getenv("HOME"); home && !home->empty()) {
    const fs::path path = fs::path(*home) / ".kube" / "config";
    std::error_code ec;
    if (fs::exists(path, ec)) return load_kubeconfig_file(path, flags);
  }
  if (!flags.server.empty()) return Config{};  // flags alone can describe the cluster
  throw ConfigError(
      "no cluster configuration: pass --kubeconfig, set $KUBECONFIG, run in a pod, or create ~/.kube/config");
}

}  // namespace

Config load_config(const ConfigFlags& flags, const Environment& env) {
  Config cfg = load_from_source(flags, env);
  if (!flags.server.empty()) {
    cfg.server = strip_trailing_slash(flags.server);
    if (cfg.source.empty()) cfg.source = "flags";
  }
  if (!flags.token.empty()) cfg.token = std::make_shared<StaticToken>(flags.token);
  if (!flags.token_file.empty()) cfg.token = std::make_shared<FileToken>(flags.token_file);
  if (!flags.ca_file.empty()) cfg.ca_pem = read_file(flags.ca_file, "CA file");
  if (flags.namespace_) cfg.default_namespace = *flags.namespace_;
  if (flags.qps) cfg.qps = *flags.qps;
  if (flags.burst) cfg.burst = *flags.burst;
  if (flags.connect_timeout) cfg.connect_timeout = *flags.connect_timeout;
  if (flags.request_timeout) cfg.request_timeout = *flags.request_timeout;
  if (cfg.burst < 1) throw ConfigError("burst must be at least 1");
  return cfg;
}

Config Config::load(const ConfigFlags& flags, const Environment& env) { return load_config(flags, env); }

}  // namespace dha::kube
