#include "dha/testing/world/vm_push.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>

namespace dha::testing::world {
namespace {

size_t append_body(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

struct Reply {
  long status = 0;
  std::string body;
  std::string error;
};

Reply send(const std::string& method, const std::string& url, std::string_view body) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  Reply reply;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) {
    reply.error = "curl_easy_init failed";
    return reply;
  }
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    reply.error = curl_easy_strerror(rc);
    return reply;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

}  // namespace

std::string push_to_victoria_metrics(const std::string& vm_url, std::string_view exposition) {
  const Reply imported = send("POST", vm_url + "/api/v1/import/prometheus", exposition);
  if (!imported.error.empty()) return "import to " + vm_url + " failed: " + imported.error;
  if (imported.status < 200 || imported.status > 299)
    return "import to " + vm_url + " answered HTTP " + std::to_string(imported.status) + ": " + imported.body;
  send("GET", vm_url + "/internal/force_flush", {});
  return {};
}

}  // namespace dha::testing::world
