#include "http_get.hpp"

#include <curl/curl.h>

#include <cmath>
#include <memory>
#include <mutex>

#include "dha/sdk/error.hpp"

namespace dha::plugins {
namespace {

struct BodyCollector {
  std::string* body;
  size_t cap;
  bool overflow = false;
};

size_t collect(char* data, size_t size, size_t count, void* user) {
  auto* c = static_cast<BodyCollector*>(user);
  const size_t n = size * count;
  if (c->body->size() + n > c->cap) {
    c->overflow = true;
    return 0;  // makes libcurl abort the transfer with CURLE_WRITE_ERROR
  }
  c->body->append(data, n);
  return n;
}

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

}  // namespace

void http_global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

HttpResponse http_get(const std::string& url, const HttpGetOptions& options) {
  http_global_init();
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) throw sdk::Error(DHA_INTERNAL, "libcurl could not create a handle");
  HttpResponse response;
  BodyCollector collector{&response.body, options.max_response_bytes};
  const long timeout_ms = std::max(1L, static_cast<long>(std::ceil(options.timeout_seconds * 1000)));

  std::unique_ptr<curl_slist, SlistDeleter> headers(curl_slist_append(nullptr, "Accept: application/json"));
  if (!options.bearer_token.empty()) {
    const std::string auth = "Authorization: Bearer " + options.bearer_token;
    headers.reset(curl_slist_append(headers.release(), auth.c_str()));
  }
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // signals are process-wide; we run on host threads
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // any encoding libcurl can decode
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &collector);
  if (!options.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, options.ca_file.c_str());

  char error[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  const CURLcode rc = curl_easy_perform(c);
  if (collector.overflow) {
    throw sdk::Error(DHA_RESOURCE_EXHAUSTED, "the response from " + url + " is larger than the cap of " +
                                                 std::to_string(options.max_response_bytes) + " bytes");
  }
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    throw sdk::Error(DHA_DEADLINE_EXCEEDED,
                     "no complete answer from " + url + " within " + std::to_string(timeout_ms) + " ms");
  }
  if (rc != CURLE_OK) {
    throw sdk::Error(DHA_UNAVAILABLE,
                     "cannot reach " + url + ": " + (error[0] != '\0' ? error : curl_easy_strerror(rc)));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace dha::plugins
