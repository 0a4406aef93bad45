#include "dha/testing/world/kube_rest.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "dha/testing/base/http_client.hpp"
#include "text_file.hpp"

namespace dha::testing::world {
namespace {

std::string base64_decode(const std::string& in, const std::string& what) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r' || c == ' ') continue;
    const auto index = kAlphabet.find(c);
    if (index == std::string_view::npos) throw std::invalid_argument(what + " is not valid base64");
    buffer = (buffer << 6) | static_cast<uint32_t>(index);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

YAML::Node named_entry(const YAML::Node& list, const std::string& name, const std::string& kind,
                       const std::string& path) {
  if (list.IsSequence()) {
    for (const auto& entry : list)
      if (entry["name"] && entry["name"].as<std::string>() == name) return entry[kind];
  }
  throw std::invalid_argument(path + ": no " + kind + " named \"" + name + "\"");
}

// Inline "-data" (base64) or a file path; "" when neither is set.
std::string pem_field(const YAML::Node& node, const std::string& key, const std::string& path) {
  if (node[key + "-data"]) return base64_decode(node[key + "-data"].as<std::string>(), path + ": " + key + "-data");
  if (node[key]) return read_text_file(node[key].as<std::string>(), key);
  return {};
}

}  // namespace

KubeEndpoint KubeEndpoint::from_kubeconfig(const std::string& path) {
  YAML::Node config;
  try {
    config = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument("cannot read kubeconfig " + path + ": " + e.what());
  }
  try {
    const auto context_name = config["current-context"] ? config["current-context"].as<std::string>() : "";
    if (context_name.empty()) throw std::invalid_argument(path + ": no current-context");
    const YAML::Node context = named_entry(config["contexts"], context_name, "context", path);
    const YAML::Node cluster = named_entry(config["clusters"], context["cluster"].as<std::string>(""), "cluster", path);
    KubeEndpoint e;
    e.server = cluster["server"].as<std::string>("");
    if (e.server.empty()) throw std::invalid_argument(path + ": the cluster has no server");
    e.ca_pem = pem_field(cluster, "certificate-authority", path);
    e.insecure_skip_tls_verify = cluster["insecure-skip-tls-verify"].as<bool>(false);
    if (context["user"]) {
      const YAML::Node user = named_entry(config["users"], context["user"].as<std::string>(), "user", path);
      if (user["token"])
        e.token = user["token"].as<std::string>();
      else if (user["tokenFile"])
        e.token = read_text_file(user["tokenFile"].as<std::string>(), "token file");
      while (!e.token.empty() && (e.token.back() == '\n' || e.token.back() == '\r')) e.token.pop_back();
      e.client_certificate_pem = pem_field(user, "client-certificate", path);
      e.client_key_pem = pem_field(user, "client-key", path);
    }
    return e;
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument("malformed kubeconfig " + path + ": " + e.what());
  }
}

KubeRest::KubeRest(KubeEndpoint endpoint, std::chrono::milliseconds timeout)
    : endpoint_(std::move(endpoint)), timeout_(timeout), client_(std::make_unique<base::HttpClient>()) {}

KubeRest::~KubeRest() = default;

KubeRest::Response KubeRest::get(const std::string& path) { return send("GET", path, {}, nullptr); }

KubeRest::Response KubeRest::create(const std::string& path, std::string_view json) {
  return send("POST", path, json, "application/json");
}

KubeRest::Response KubeRest::merge_patch(const std::string& path, std::string_view json) {
  return send("PATCH", path, json, "application/merge-patch+json");
}

KubeRest::Response KubeRest::send(const char* method, const std::string& path, std::string_view body,
                                  const char* content_type) {
  base::HttpRequest request(method, endpoint_.server + path);
  request.ca_pem = endpoint_.ca_pem;
  request.client_certificate_pem = endpoint_.client_certificate_pem;
  request.client_key_pem = endpoint_.client_key_pem;
  request.insecure_skip_tls_verify = endpoint_.insecure_skip_tls_verify;
  request.timeout = timeout_;
  request.headers.push_back("Accept: application/json");
  if (content_type != nullptr) {
    request.headers.push_back(std::string("Content-Type: ") + content_type);
    request.body = body;
  }
  if (!endpoint_.token.empty()) request.headers.push_back("Authorization: Bearer " + endpoint_.token);
  base::HttpReply reply = client_->send(request);
  if (!reply.error.empty())
    throw std::runtime_error(std::string(method) + " " + request.url + " failed: " + reply.error);
  Response response;
  response.status = reply.status;
  response.body = std::move(reply.body);
  return response;
}

}  // namespace dha::testing::world
