#include "kube_request.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace dha::testing::detail {
namespace {

size_t append(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

}  // namespace

KubeResponse kube_request(const std::string& url, const std::string& ca_pem, const std::string& token,
                          const std::string& method, const std::string& body, const std::string& content_type,
                          std::chrono::milliseconds timeout) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  KubeResponse result;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) {
    result.error = "curl_easy_init failed";
    return result;
  }
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_blob ca{const_cast<char*>(ca_pem.data()), ca_pem.size(), CURL_BLOB_COPY};
  if (!ca_pem.empty()) curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(nullptr, &curl_slist_free_all);
  auto add_header = [&headers](const std::string& h) {
    headers.reset(curl_slist_append(headers.release(), h.c_str()));
  };
  add_header("Accept: application/json");
  if (!token.empty()) add_header("Authorization: Bearer " + token);
  if (!body.empty()) {
    add_header("Content-Type: " + content_type);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &result.body);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    result.error = std::string(curl_easy_strerror(rc)) + " (" + method + " " + url + ")";
    return result;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.status);
  return result;
}

}  // namespace dha::testing::detail
