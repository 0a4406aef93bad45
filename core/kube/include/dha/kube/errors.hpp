#pragma once
// Typed errors for every call to the API server. A failed call throws ApiError; the reason
// mirrors the Kubernetes `Status.reason` so callers branch on meaning, not on HTTP codes:
//
//   try { client.get(ref); }
//   catch (const ApiError& e) { if (e.reason() == Reason::NotFound) ...; }
//
// Transport failures (connection refused, TLS verification, timeout before a response)
// are ApiError with Reason::Transport and the curl message.

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dha::kube {

enum class Reason {
  Unknown,
  BadRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  MethodNotAllowed,
  AlreadyExists,
  Conflict,
  Gone,             // 410: also the watch "Expired" (resourceVersion too old) case
  Invalid,          // 422, with field causes
  TooManyRequests,  // 429
  InternalError,    // 500
  ServiceUnavailable,
  Timeout,    // 504 / 408 / Status reason Timeout or ServerTimeout
  Transport,  // no HTTP response at all (connect, TLS, read timeout)
};

std::string_view to_string(Reason reason);

// One entry of Status.details.causes (422 Invalid carries one per rejected field).
struct StatusCause {
  std::string reason;
  std::string field;
  std::string message;
};

class ApiError : public std::runtime_error {
 public:
  ApiError(Reason reason, int http_status, std::string message, std::vector<StatusCause> causes = {},
           std::optional<int> retry_after_seconds = std::nullopt);

  Reason reason() const { return reason_; }
  int http_status() const { return http_status_; }  // 0 for Reason::Transport
  const std::string& message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  std::optional<int> retry_after_seconds() const { return retry_after_; }
  // True for errors where the same request may succeed later unchanged (throttling, server
  // errors, timeouts, transport). Conflict is not here: it needs a re-read, not a resend.
  bool retryable() const;

 private:
  Reason reason_;
  int http_status_;
  std::string message_;
  std::vector<StatusCause> causes_;
  std::optional<int> retry_after_;
};

// Builds the error for a non-2xx response. `body` is usually a meta/v1 Status; a body that is
// not one (a proxy's HTML page, garbage) still yields a typed error from the HTTP code.
ApiError error_from_response(int http_status, std::string_view body,
                             std::optional<int> retry_after_seconds = std::nullopt);

// The reason an HTTP code means when the body does not say.
Reason reason_from_http_status(int http_status);

inline bool is_not_found(const ApiError& e) { return e.reason() == Reason::NotFound; }
inline bool is_conflict(const ApiError& e) { return e.reason() == Reason::Conflict; }
inline bool is_gone(const ApiError& e) { return e.reason() == Reason::Gone; }

}  // namespace dha::kube
