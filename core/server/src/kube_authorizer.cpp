#include <dha/server/kube_authorizer.hpp>

#include <curl/curl.h>
#include <openssl/evp.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace dha::server {

namespace {

using Clock = std::chrono::steady_clock;

size_t append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// Cache keys hold a digest, never the caller's token itself.
std::string sha256_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xf];
  }
  return out;
}

class KubeAuthorizer {
public:
  explicit KubeAuthorizer(KubeAuthorizerOptions options) : options_(std::move(options)) {
    while (!options_.api_server_url.empty() && options_.api_server_url.back() == '/') options_.api_server_url.pop_back();
    if (options_.api_server_url.empty()) throw std::invalid_argument("kube authorizer: api_server_url is empty");
  }

  AuthorizationResult operator()(const Request& request) {
    const std::string token(request.bearer_token());
    if (token.empty()) return {false, 401, "Unauthorized: a bearer token is required"};
    const std::string key = sha256_hex(token) + ' ' + request.path;
    if (auto cached = lookup(key)) return *cached;
    AuthorizationResult result = review(token, request.path);
    store(key, result);
    return result;
  }

private:
  struct Entry {
    AuthorizationResult result;
    Clock::time_point expires;
  };

  std::optional<AuthorizationResult> lookup(const std::string& key) {
    if (options_.cache_ttl.count() <= 0) return std::nullopt;
    std::lock_guard lock(mutex_);
    auto it = cache_.find(key);
    if (it == cache_.end()) return std::nullopt;
    if (it->second.expires <= Clock::now()) {
      cache_.erase(it);
      return std::nullopt;
    }
    return it->second.result;
  }

  void store(const std::string& key, const AuthorizationResult& result) {
    if (options_.cache_ttl.count() <= 0) return;
    std::lock_guard lock(mutex_);
    if (cache_.size() >= options_.max_cache_entries) cache_.clear(); // bounded; a refill is cheap
    cache_[key] = {result, Clock::now() + options_.cache_ttl};
  }

  AuthorizationResult review(const std::string& token, const std::string& path) {
    // 1. Who is this?
    rapidjson::StringBuffer tr;
    {
      rapidjson::Writer<rapidjson::StringBuffer> w(tr);
      w.StartObject();
      w.Key("apiVersion");
      w.String("authentication.k8s.io/v1");
      w.Key("kind");
      w.String("TokenReview");
      w.Key("spec");
      w.StartObject();
      w.Key("token");
      w.String(token.c_str(), static_cast<rapidjson::SizeType>(token.size()));
      w.EndObject();
      w.EndObject();
    }
    rapidjson::Document token_review;
    post("/apis/authentication.k8s.io/v1/tokenreviews", tr.GetString(), token_review);
    const auto& ts = token_review["status"];
    if (!ts.IsObject() || !ts.HasMember("authenticated") || !ts["authenticated"].IsBool() ||
        !ts["authenticated"].GetBool() || !ts.HasMember("user") || !ts["user"].IsObject())
      return {false, 401, "Unauthorized: the token was not accepted by the API server"};
    const auto& user = ts["user"];
    const std::string username = user.HasMember("username") && user["username"].IsString() ? user["username"].GetString() : "";

    // 2. May it <verb> this path?
    rapidjson::StringBuffer sar;
    {
      rapidjson::Writer<rapidjson::StringBuffer> w(sar);
      w.StartObject();
      w.Key("apiVersion");
      w.String("authorization.k8s.io/v1");
      w.Key("kind");
      w.String("SubjectAccessReview");
      w.Key("spec");
      w.StartObject();
      w.Key("user");
      w.String(username.c_str(), static_cast<rapidjson::SizeType>(username.size()));
      if (user.HasMember("uid") && user["uid"].IsString()) {
        w.Key("uid");
        w.String(user["uid"].GetString(), user["uid"].GetStringLength());
      }
      if (user.HasMember("groups") && user["groups"].IsArray()) {
        w.Key("groups");
        user["groups"].Accept(w);
      }
      if (user.HasMember("extra") && user["extra"].IsObject()) {
        w.Key("extra");
        user["extra"].Accept(w);
      }
      w.Key("nonResourceAttributes");
      w.StartObject();
      w.Key("path");
      w.String(path.c_str(), static_cast<rapidjson::SizeType>(path.size()));
      w.Key("verb");
      w.String(options_.verb.c_str(), static_cast<rapidjson::SizeType>(options_.verb.size()));
      w.EndObject();
      w.EndObject();
      w.EndObject();
    }
    rapidjson::Document access_review;
    post("/apis/authorization.k8s.io/v1/subjectaccessreviews", sar.GetString(), access_review);
    const auto& as = access_review["status"];
    if (as.IsObject() && as.HasMember("allowed") && as["allowed"].IsBool() && as["allowed"].GetBool())
      return {true, 200, ""};
    return {false, 403,
            "Forbidden: user \"" + username + "\" is not allowed to " + options_.verb + " path \"" + path + "\""};
  }

  // POSTs a review and parses the answer; throws std::runtime_error unless it is a 2xx JSON
  // object with a status object.
  void post(const std::string& path, const char* body, rapidjson::Document& out) {
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) throw std::runtime_error("kube authorizer: curl_easy_init failed");
    const std::string url = options_.api_server_url + path;
    std::string response;
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    const std::string auth = "Authorization: Bearer " + options_.bearer_token;
    if (!options_.bearer_token.empty()) headers = curl_slist_append(headers, auth.c_str());
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers, curl_slist_free_all);
    CURL* c = curl.get();
    curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout.count()));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &response);
    curl_blob ca{};
    if (!options_.ca_pem.empty()) {
      ca.data = options_.ca_pem.data();
      ca.len = options_.ca_pem.size();
      ca.flags = CURL_BLOB_NOCOPY;
      curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
    }
    CURLcode code = curl_easy_perform(c);
    if (code != CURLE_OK)
      throw std::runtime_error("kube authorizer: POST " + path + " failed: " + curl_easy_strerror(code));
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (status < 200 || status > 299)
      throw std::runtime_error("kube authorizer: POST " + path + " answered HTTP " + std::to_string(status));
    out.Parse(response.c_str(), response.size());
    if (out.HasParseError() || !out.IsObject() || !out.HasMember("status"))
      throw std::runtime_error("kube authorizer: POST " + path + " answered something that is not a review");
  }

  KubeAuthorizerOptions options_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> cache_;
};

} // namespace

Authorizer make_kube_authorizer(KubeAuthorizerOptions options) {
  auto authorizer = std::make_shared<KubeAuthorizer>(std::move(options));
  return [authorizer](const Request& request) { return (*authorizer)(request); };
}

} // namespace dha::server
