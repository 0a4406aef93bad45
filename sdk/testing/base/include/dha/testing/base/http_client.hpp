#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The test kit's one HTTP client (libcurl): the embedded API server calling webhooks, the
// cluster fixture and the world talking to an API server, the VictoriaMetrics fixture. Not
// installed: the kit's parts link it; their users never see it.
namespace dha::testing::base {

struct HttpRequest {
  HttpRequest() = default;
  HttpRequest(std::string method_, std::string url_) : method(std::move(method_)), url(std::move(url_)) {}
  HttpRequest(std::string method_, std::string url_, std::string_view body_)
      : method(std::move(method_)), url(std::move(url_)), body(body_) {}

  std::string method = "GET";
  std::string url;
  std::optional<std::string_view> body;  // sent (with its length) when set, even when empty
  std::vector<std::string> headers;      // "Name: value"
  std::string ca_pem;                    // verify the server against this CA; empty: the system's
  std::string client_certificate_pem;
  std::string client_key_pem;
  bool insecure_skip_tls_verify = false;
  std::string connect_to;  // curl's CONNECT_TO entry ("host:port:addr:port"); empty: none
  std::chrono::milliseconds timeout{5000};
};

struct HttpReply {
  long status = 0;  // 0 when no response came
  std::string body;
  std::string error;  // empty when a response came (whatever its status)
  bool timed_out = false;
};

// One libcurl handle; keeps its connection open between requests (keep-alive). Not thread-safe:
// one client per thread.
class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpReply send(const HttpRequest& request);

 private:
  void* curl_;
};

// One request on a connection of its own.
HttpReply http_send(const HttpRequest& request);

}  // namespace dha::testing::base
