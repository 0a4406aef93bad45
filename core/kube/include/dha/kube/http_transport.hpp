#pragma once
// HTTP/1.1 over libcurl with TLS via OpenSSL. One transport per Config; thread-safe.
//
// Threading: each request borrows a curl easy handle from a mutex'd pool and returns it when
// done, so connections (and TLS sessions) are reused across requests and threads without two
// threads ever sharing a handle. The pool grows with concurrency and keeps at most
// kMaxIdleHandles idle. Streaming requests (watches) block their calling thread; they stop when
// the server ends the stream, the callback returns false, or `stop` becomes true (checked at
// least once a second even when no data arrives).

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/kube/config.hpp"
#include "dha/kube/rate_limiter.hpp"
#include "dha/telemetry/controller_metrics.hpp"

namespace dha::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // path + query, appended to Config::server
  std::string body;
  std::string content_type;  // for requests with a body
  std::string accept = "application/json";
  // When the answer must have come: a request still waiting for the rate limiter or the
  // server then is abandoned (Reason::Timeout), whatever Config::request_timeout says.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct HttpResponse {
  int status = 0;
  std::string body;  // empty for streamed responses
  std::optional<int> retry_after_seconds;
};

class HttpTransport {
 public:
  static constexpr std::size_t kMaxIdleHandles = 16;

  explicit HttpTransport(Config config);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Sends one request (after the client-side rate limit) and returns any HTTP response,
  // including 4xx/5xx. Throws ApiError(Reason::Transport) when no response arrives. Counted in
  // rest_client_*.
  HttpResponse perform(const HttpRequest& request);

  // Streams a 2xx response body to `on_data` as it arrives (return false to stop); a non-2xx
  // body is collected into the returned response instead. `timeout` bounds the whole stream
  // (0 = none). Returns normally when stopped by `stop` or by `on_data`. Counted in
  // rest_client_requests_total when it ends (not in the latency histogram: a stream's length
  // is its timeout, not latency).
  // `idle_limit` (0 = none): a stream that receives not one byte (headers included) for that
  // long is cut with ApiError(Reason::Timeout). A path that silently lost the connection (a
  // relay that stopped forwarding, a dropped NAT entry) otherwise looks like a quiet stream
  // until `timeout`, and a cache fed by it stays stale that long.
  HttpResponse stream(const HttpRequest& request, const std::function<bool(std::string_view)>& on_data,
                      const std::atomic<bool>* stop, std::chrono::milliseconds timeout,
                      std::chrono::milliseconds idle_limit = std::chrono::milliseconds(0));

  const Config& config() const { return config_; }

 private:
  struct Handle;
  std::unique_ptr<Handle> borrow();
  void give_back(std::unique_ptr<Handle> handle);
  HttpResponse run(Handle& h, const HttpRequest& request, std::chrono::milliseconds timeout,
                   const std::function<bool(std::string_view)>* on_data, const std::atomic<bool>* stop,
                   std::chrono::milliseconds idle_limit);

  Config config_;
  TokenBucket limiter_;
  std::unique_ptr<telemetry::RestClientMetrics> metrics_;  // with config.metrics
  std::string host_;                                       // host:port of the server, for metrics
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Handle>> idle_;
};

}  // namespace dha::kube
