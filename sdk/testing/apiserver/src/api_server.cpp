// The public ApiServer: owns the state, the TLS material and the HTTP listener.

#include "dha/testing/api_server.hpp"

#include "dha/testing/test_certificates.hpp"
#include "http_server.hpp"
#include "server_state.hpp"

#include <curl/curl.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace dha::testing {

using namespace apiserver;

class ApiServer::Impl {
 public:
  explicit Impl(ApiServerOptions options) : state(std::move(options)) {}
  ServerState state;
  std::unique_ptr<HttpServer> http;
  TestCertificate tls_material;
  bool started = false;
  bool initialized = false;  // store, types and TLS material exist: a later start() is a restart
};

namespace apiserver {

void install_builtin_types(ServerState& state) {
  for (const auto& type : builtin_types()) state.types[type->key()] = type;
}

void create_initial_namespaces(ServerState& state) {
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    JsonDoc ns(rapidjson::kObjectType);
    ns.Parse((std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") + name + "\"}}").c_str());
    HttpRequest request;
    request.method = "POST";
    request.path = "/api/v1/namespaces";
    request.headers["content-type"] = "application/json";
    request.body = to_json(ns);
    ResourceRequest rr;
    rr.type = state.types.at("/namespaces");
    rr.version = &rr.type->versions.front();
    handle_resource(state, rr, request, Identity{"system:admin", {"system:masters"}, ""});
  }
}

}  // namespace apiserver

namespace {

std::vector<std::string> crd_files(const std::string& path) {
  std::vector<std::string> out;
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::recursive_directory_iterator(path)) {
      auto ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end());
  } else if (fs::exists(path)) {
    out.push_back(path);
  } else {
    throw std::runtime_error("CRD path does not exist: " + path);
  }
  return out;
}

void register_crd_text(ServerState& state, const std::string& text, const std::string& origin) {
  try {
    std::vector<JsonDoc> docs;
    auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{')
      docs.push_back(parse_json(text));
    else
      docs = parse_yaml_documents(text);
    for (const auto& doc : docs) {
      if (string_at(doc, {"kind"}) != "CustomResourceDefinition") continue;
      apply_crd_object(state, doc);
    }
  } catch (const ApiError& e) {
    throw std::runtime_error("cannot register CRD from " + origin + ": " + e.what());
  }
}

}  // namespace

ApiServer::ApiServer(ApiServerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

ApiServer::~ApiServer() { stop(); }

void ApiServer::start() {
  if (impl_->started) return;
  auto& state = impl_->state;
  const std::string& listen = state.options.listen;
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("--listen must be HOST:PORT, got " + listen);
  std::string host = listen.substr(0, colon);
  std::string port_text = listen.substr(colon + 1);
  if (port_text.empty() || port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(port_text) > 65535)
    throw std::runtime_error("--listen must be HOST:PORT with a port 0-65535, got " + listen);
  int port = std::stoi(port_text);
  if (impl_->initialized) {
    // A restart: same store, same address, so clients holding the old URL reconnect to it.
    port = impl_->http->port();
    std::lock_guard lock(state.mu);
    state.stopping = false;
  } else {
    install_builtin_types(state);
    create_initial_namespaces(state);
    for (const auto& dir : state.options.crd_dirs)
      for (const auto& file : crd_files(dir)) {
        std::ifstream in(file);
        std::stringstream text;
        text << in.rdbuf();
        register_crd_text(state, text.str(), file);
      }
  }
  impl_->http = std::make_unique<HttpServer>([&state](HttpRequest& r) { return handle_request(state, r); },
                                             state.options.max_body_bytes);
  HttpServer::Tls tls;
  if (state.options.tls) {
    if (!impl_->initialized)
      impl_->tls_material = issue_test_certificate({"localhost"}, {host == "0.0.0.0" ? "127.0.0.1" : host});
    tls.cert_pem = impl_->tls_material.cert_pem;
    tls.key_pem = impl_->tls_material.key_pem;
    state.ca_pem = impl_->tls_material.ca_pem;
  }
  impl_->http->start(host, static_cast<uint16_t>(port), state.options.tls ? &tls : nullptr);
  {
    std::lock_guard lock(state.mu);
    state.base_url =
        std::string(state.options.tls ? "https" : "http") + "://" + host + ":" + std::to_string(impl_->http->port());
  }
  impl_->started = true;
  impl_->initialized = true;
}

void ApiServer::stop() {
  if (!impl_->started) return;
  {
    std::lock_guard lock(impl_->state.mu);
    impl_->state.stopping = true;
    impl_->state.store.wake_all();
  }
  impl_->http->stop();
  impl_->started = false;
}

std::string ApiServer::url() const {
  std::lock_guard lock(impl_->state.mu);
  return impl_->state.base_url;
}

uint16_t ApiServer::port() const { return impl_->http ? impl_->http->port() : 0; }

std::string ApiServer::ca_pem() const { return impl_->state.ca_pem; }

void ApiServer::write_kubeconfig(const std::string& path, const std::string& token) const {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write kubeconfig " + path);
  out << "apiVersion: v1\nkind: Config\nclusters:\n- name: dha-testkit\n  cluster:\n    server: " << url() << "\n";
  if (!ca_pem().empty()) out << "    certificate-authority-data: " << base64_encode(ca_pem()) << "\n";
  // Without any credential kubectl prompts for a username; an anonymous-admin server ignores
  // the placeholder token.
  out << "users:\n- name: dha-testkit-user\n  user:\n    token: \"" << (token.empty() ? "dha-testkit-anonymous" : token)
      << "\"\n";
  out << "contexts:\n- name: dha-testkit\n  context:\n    cluster: dha-testkit\n    user: dha-testkit-user\n"
         "    namespace: default\ncurrent-context: dha-testkit\n";
  if (!out) throw std::runtime_error("cannot write kubeconfig " + path);
}

std::vector<AuditEntry> ApiServer::audit() const {
  std::lock_guard lock(impl_->state.mu);
  return impl_->state.audit;
}

void ApiServer::clear_audit() {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.audit.clear();
}

void ApiServer::inject_fault(const std::string& method, const std::string& path_regex, int status, int count) {
  Fault fault;
  fault.method = method;
  fault.pattern = path_regex;
  fault.path = std::regex(path_regex, std::regex::ECMAScript);
  fault.status = status;
  fault.remaining = count;
  std::lock_guard lock(impl_->state.mu);
  impl_->state.faults.push_back(std::move(fault));
}

void ApiServer::inject_delay(const std::string& method, const std::string& path_regex, std::chrono::milliseconds delay,
                             int count) {
  Fault fault;
  fault.method = method;
  fault.pattern = path_regex;
  fault.path = std::regex(path_regex, std::regex::ECMAScript);
  fault.status = 0;
  fault.delay = delay;
  fault.remaining = count;
  std::lock_guard lock(impl_->state.mu);
  impl_->state.faults.push_back(std::move(fault));
}

void ApiServer::clear_faults() {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.faults.clear();
}

int ApiServer::silence_watches(const std::string& resource, bool later_too) {
  std::lock_guard lock(impl_->state.mu);
  int silenced = 0;
  for (const auto& [watched, flag] : impl_->state.watch_silence) {
    if (auto open = flag.lock(); open && watched == resource) {
      *open = true;
      ++silenced;
    }
  }
  if (later_too) impl_->state.silenced_resources.insert(resource);
  return silenced;
}

void ApiServer::resume_watches(const std::string& resource) {
  std::lock_guard lock(impl_->state.mu);
  impl_->state.silenced_resources.erase(resource);
}

void ApiServer::register_crd(const std::string& yaml_or_json) {
  if (!impl_->started) {
    std::lock_guard lock(impl_->state.mu);
    if (impl_->state.types.empty()) install_builtin_types(impl_->state);
  }
  register_crd_text(impl_->state, yaml_or_json, "register_crd()");
}

}  // namespace dha::testing
