#pragma once

// Plain request/response values and the path router of the HTTP(S) server. Nothing here
// includes Asio or Beast: handlers and the operator compile against this header only.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dha::server {

struct Request {
  std::string method;  // "POST"
  std::string target;  // raw request target, "/metrics?x=1"
  std::string path;    // target without the query
  std::string query;   // after '?', may be empty
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote_address;  // "127.0.0.1:53122"
  bool secure = false;         // arrived over TLS
  // The peer is in ServerOptions::trusted_networks (configured, never learned from requests):
  // a route may spare it limits meant for other callers.
  bool from_trusted_network = false;

  // First header with this name, compared case-insensitively; empty when absent.
  std::string_view header(std::string_view name) const;
  // The token of an `Authorization: Bearer <token>` header; empty when absent.
  std::string_view bearer_token() const;
};

struct Response {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  // The handler recognised a request only the client the server exists for sends (a
  // well-formed AdmissionReview): the server may trust its peer address with reserved
  // connection slots (when it is not told the trusted networks). Not sent.
  bool vouches_for_peer = false;

  static Response text(int status, std::string body);
};

// Handlers run on a server thread and may run concurrently with each other; an exception
// escaping one becomes a 500 response, never a dropped connection.
using Handler = std::function<Response(const Request&)>;

// Exact-path routing: the paths this operator serves are fixed strings.
//
// Each route says how large a request body it takes; the server refuses a larger one (413)
// from the request's header, before reading or buffering any of it. An unknown path takes
// no body at all.
class Router {
 public:
  // Throws std::invalid_argument for an empty path, one not starting with '/', or a duplicate.
  // `max_body_bytes` empty: the server's ServerOptions::max_body_bytes.
  void handle(std::string path, Handler handler, std::optional<std::size_t> max_body_bytes = std::nullopt);
  bool has(std::string_view path) const;
  // The body limit of the route serving `path`: 0 for an unknown path, empty for a route
  // that takes the server's default.
  std::optional<std::size_t> body_limit(std::string_view path) const;
  // 404 for an unknown path; 500 (with the exception's message) when the handler throws.
  Response dispatch(const Request& request) const;

 private:
  struct Route {
    Handler handler;
    std::optional<std::size_t> max_body_bytes;
  };
  std::map<std::string, Route, std::less<>> routes_;
};

// Authentication and authorization of a request before routing (the metrics endpoint "the
// Kubernetes way"). A refusal carries 401 (unauthenticated) or 403 (forbidden).
struct AuthorizationResult {
  bool allowed = false;
  int status = 403;
  std::string message;
};
using Authorizer = std::function<AuthorizationResult(const Request&)>;

}  // namespace dha::server
