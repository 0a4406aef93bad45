#include "dha/testing/base/http_client.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <stdexcept>

namespace dha::testing::base {
namespace {

size_t append(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

void set_blob(CURL* curl, CURLoption option, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(curl, option, &blob);
}

using Headers = std::unique_ptr<curl_slist, void (*)(curl_slist*)>;

Headers list_of(const std::vector<std::string>& lines) {
  Headers list(nullptr, &curl_slist_free_all);
  for (const auto& line : lines) list.reset(curl_slist_append(list.release(), line.c_str()));
  return list;
}

}  // namespace

HttpClient::HttpClient() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  if (curl_ == nullptr) throw std::runtime_error("curl_easy_init failed");
}

HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

HttpReply HttpClient::send(const HttpRequest& request) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);  // options only: the open connection stays for the next request
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");  // loopback servers; a proxy in the environment is not ours
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
  if (request.body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body->data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body->size()));
  }
  const Headers headers = list_of(request.headers);
  if (headers) curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  const Headers connect_to =
      list_of(request.connect_to.empty() ? std::vector<std::string>{} : std::vector<std::string>{request.connect_to});
  if (connect_to) curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to.get());
  if (!request.ca_pem.empty()) set_blob(c, CURLOPT_CAINFO_BLOB, request.ca_pem);
  if (!request.client_certificate_pem.empty()) {
    set_blob(c, CURLOPT_SSLCERT_BLOB, request.client_certificate_pem);
    curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
  }
  if (!request.client_key_pem.empty()) {
    set_blob(c, CURLOPT_SSLKEY_BLOB, request.client_key_pem);
    curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (request.insecure_skip_tls_verify) {
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  HttpReply reply;
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK) {
    reply.error = curl_easy_strerror(rc);
    reply.timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    return reply;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

HttpReply http_send(const HttpRequest& request) {
  try {
    HttpClient client;
    return client.send(request);
  } catch (const std::exception& e) {
    HttpReply reply;
    reply.error = e.what();
    return reply;
  }
}

}  // namespace dha::testing::base
