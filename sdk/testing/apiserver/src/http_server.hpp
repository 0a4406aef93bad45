#pragma once
// A small HTTP/1.1 (optionally TLS) server: one thread per connection, keep-alive, chunked
// streaming for watches. Threads are cheap at test scale and keep the handler synchronous.

#include "http_types.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace dha::testing::apiserver {

using RequestHandler = std::function<HttpResponse(HttpRequest&)>;

class HttpServer {
 public:
  struct Tls {
    std::string cert_pem, key_pem;
  };

  HttpServer(RequestHandler handler, std::size_t max_body_bytes);
  ~HttpServer();

  // Binds and starts accepting; throws std::runtime_error if the address cannot be bound.
  void start(const std::string& host, uint16_t port, const Tls* tls);
  // Stops accepting, shuts every open connection down and waits for their threads.
  void stop();
  uint16_t port() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

}  // namespace dha::testing::apiserver
