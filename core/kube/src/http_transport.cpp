#include "dha/kube/http_transport.hpp"

#include <curl/curl.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "dha/kube/errors.hpp"

namespace dha::kube {

namespace {

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

void append(Slist& list, const std::string& header) {
  curl_slist* next = curl_slist_append(list.get(), header.c_str());
  if (next == nullptr) throw std::bad_alloc();
  (void)list.release();
  list.reset(next);
}

}  // namespace

// One easy handle and the per-transfer state its callbacks write into.
struct HttpTransport::Handle {
  CURL* curl = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  // Per transfer:
  HttpResponse* response = nullptr;
  const std::function<bool(std::string_view)>* on_data = nullptr;
  const std::atomic<bool>* stop = nullptr;
  bool stopped_by_us = false;
  // A stream that receives nothing at all for `idle_limit` (0 = no limit) is cut: see stream().
  std::chrono::milliseconds idle_limit{0};
  std::chrono::steady_clock::time_point last_received;
  bool cut_idle = false;

  Handle() : curl(curl_easy_init()) {
    if (curl == nullptr) throw ApiError(Reason::Transport, 0, "curl_easy_init failed");
  }
  ~Handle() { curl_easy_cleanup(curl); }

  static size_t on_write(char* data, size_t size, size_t count, void* self_ptr) {
    auto& self = *static_cast<Handle*>(self_ptr);
    const size_t n = size * count;
    self.last_received = std::chrono::steady_clock::now();
    if (self.on_data != nullptr) {
      long code = 0;
      curl_easy_getinfo(self.curl, CURLINFO_RESPONSE_CODE, &code);
      if (code >= 200 && code < 300) {
        if ((self.stop != nullptr && self.stop->load()) || !(*self.on_data)(std::string_view(data, n))) {
          self.stopped_by_us = true;
          return 0;  // aborts the transfer
        }
        return n;
      }
    }
    constexpr size_t kMaxBody = 64u << 20;  // far above any object; stops a runaway response
    if (self.response->body.size() + n > kMaxBody) return 0;
    self.response->body.append(data, n);
    return n;
  }

  static size_t on_header(char* data, size_t size, size_t count, void* self_ptr) {
    auto& self = *static_cast<Handle*>(self_ptr);
    const size_t n = size * count;
    self.last_received = std::chrono::steady_clock::now();
    constexpr std::string_view kRetryAfter = "retry-after:";
    std::string_view line(data, n);
    if (line.size() > kRetryAfter.size() && strncasecmp(line.data(), kRetryAfter.data(), kRetryAfter.size()) == 0) {
      const std::string value(line.substr(kRetryAfter.size()));
      char* end = nullptr;
      const long secs = std::strtol(value.c_str(), &end, 10);
      if (end != value.c_str() && secs >= 0 && secs < 3600) self.response->retry_after_seconds = int(secs);
    }
    return n;
  }

  static int on_progress(void* self_ptr, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    auto& self = *static_cast<Handle*>(self_ptr);
    if (self.stop != nullptr && self.stop->load()) {
      self.stopped_by_us = true;
      return 1;
    }
    if (self.idle_limit.count() > 0 && std::chrono::steady_clock::now() - self.last_received > self.idle_limit) {
      self.cut_idle = true;
      return 1;
    }
    return 0;
  }
};

HttpTransport::HttpTransport(Config config) : config_(std::move(config)), limiter_(config_.qps, config_.burst) {
  global_init();
  if (config_.server.empty()) throw ConfigError("no API server URL configured");
  if (!config_.tls_server_name.empty())
    throw ConfigError(
        "tls-server-name is not supported by this client; point the server URL at a name the certificate carries");
  if (config_.metrics != nullptr) {
    metrics_ = std::make_unique<telemetry::RestClientMetrics>(*config_.metrics);
    const auto scheme = config_.server.find("://");
    host_ = config_.server.substr(scheme == std::string::npos ? 0 : scheme + 3);
    host_ = host_.substr(0, host_.find('/'));
  }
}

HttpTransport::~HttpTransport() = default;

std::unique_ptr<HttpTransport::Handle> HttpTransport::borrow() {
  {
    std::lock_guard lock(pool_mu_);
    if (!idle_.empty()) {
      auto h = std::move(idle_.back());
      idle_.pop_back();
      return h;
    }
  }
  auto h = std::make_unique<Handle>();
  CURL* c = h->curl;
  // Fixed per handle: protocol, TLS material, callbacks. Per request: URL, method, headers, body.
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->error);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, long(config_.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_USERAGENT, config_.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Handle::on_write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, h.get());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &Handle::on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, h.get());
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &Handle::on_progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, h.get());
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_SSLVERSION, long(CURL_SSLVERSION_TLSv1_2));
  // Wire-level debugging without a rebuild: DHA_KUBE_CURL_VERBOSE=1 prints curl's trace to stderr.
  if (const char* v = std::getenv("DHA_KUBE_CURL_VERBOSE"); v != nullptr && v[0] == '1')
    curl_easy_setopt(c, CURLOPT_VERBOSE, 1L);
  if (!config_.ca_pem.empty()) {
    // Trust exactly the configured CA, not the system store as well.
    curl_blob ca{const_cast<char*>(config_.ca_pem.data()), config_.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
    curl_easy_setopt(c, CURLOPT_CAPATH, nullptr);
    curl_easy_setopt(c, CURLOPT_CAINFO, nullptr);
  }
  if (!config_.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(config_.client_cert_pem.data()), config_.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(config_.client_key_pem.data()), config_.client_key_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (config_.insecure_skip_tls_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  return h;
}

void HttpTransport::give_back(std::unique_ptr<Handle> handle) {
  std::lock_guard lock(pool_mu_);
  if (idle_.size() < kMaxIdleHandles) idle_.push_back(std::move(handle));
}

HttpResponse HttpTransport::run(Handle& h, const HttpRequest& request, std::chrono::milliseconds timeout,
                                const std::function<bool(std::string_view)>* on_data, const std::atomic<bool>* stop,
                                std::chrono::milliseconds idle_limit) {
  limiter_.acquire();
  const auto now = std::chrono::steady_clock::now();
  if (request.deadline <= now)
    throw ApiError(Reason::Timeout, 0,
                   fmt::format("{} {}: not sent, its deadline passed while it waited for the client-side rate limit",
                               request.method, request.path));
  if (request.deadline != std::chrono::steady_clock::time_point::max() &&
      (timeout.count() == 0 || request.deadline - now < timeout))
    timeout = std::max(std::chrono::milliseconds(1),
                       std::chrono::duration_cast<std::chrono::milliseconds>(request.deadline - now));
  HttpResponse response;
  h.response = &response;
  h.on_data = on_data;
  h.stop = stop;
  h.stopped_by_us = false;
  h.idle_limit = idle_limit;
  h.last_received = std::chrono::steady_clock::now();
  h.cut_idle = false;
  h.error[0] = '\0';

  CURL* c = h.curl;
  const std::string url = config_.server + request.path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, long(timeout.count()));

  Slist headers;
  append(headers, "Accept: " + request.accept);
  append(headers, "Expect:");  // no 100-continue round trip for small bodies
  if (config_.token) {
    const std::string token = config_.token->token();
    if (!token.empty()) append(headers, "Authorization: Bearer " + token);
  }
  if (request.method == "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, nullptr);
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else {
    if (!request.content_type.empty()) append(headers, "Content-Type: " + request.content_type);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());

  const CURLcode rc = curl_easy_perform(c);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  // Drop pointers into this frame before the handle goes back to the pool.
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, nullptr);
  h.response = nullptr;
  h.on_data = nullptr;
  h.stop = nullptr;

  if (rc != CURLE_OK && h.cut_idle)
    throw ApiError(Reason::Timeout, 0,
                   fmt::format("{} {}: nothing received for {} s, so the stream is taken for lost", request.method, url,
                               std::chrono::duration_cast<std::chrono::seconds>(idle_limit).count()));
  if (rc != CURLE_OK && !h.stopped_by_us) {
    const std::string detail = h.error[0] != '\0' ? std::string(h.error) : std::string(curl_easy_strerror(rc));
    const Reason reason = rc == CURLE_OPERATION_TIMEDOUT ? Reason::Timeout : Reason::Transport;
    throw ApiError(reason, 0, fmt::format("{} {}: {}", request.method, url, detail));
  }
  response.status = int(code);
  return response;
}

HttpResponse HttpTransport::perform(const HttpRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const auto count = [&](int code) {
    if (metrics_)
      metrics_->request(request.method, host_, code,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  auto h = borrow();
  HttpResponse response;
  try {
    response = run(*h, request, config_.request_timeout, nullptr, nullptr, std::chrono::milliseconds(0));
  } catch (...) {
    count(0);
    throw;
  }
  give_back(std::move(h));
  count(response.status);
  return response;
}

HttpResponse HttpTransport::stream(const HttpRequest& request, const std::function<bool(std::string_view)>& on_data,
                                   const std::atomic<bool>* stop, std::chrono::milliseconds timeout,
                                   std::chrono::milliseconds idle_limit) {
  auto h = borrow();
  HttpResponse response;
  try {
    response = run(*h, request, timeout, &on_data, stop, idle_limit);
  } catch (...) {
    if (metrics_) metrics_->stream(request.method, host_, 0);
    throw;
  }
  if (metrics_) metrics_->stream(request.method, host_, response.status);
  // A stream we cut mid-body leaves its connection unusable, curl closes it; the handle is fine.
  give_back(std::move(h));
  return response;
}

}  // namespace dha::kube
