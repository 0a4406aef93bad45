#include "dha/kube/errors.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

namespace dha::kube {

std::string_view to_string(Reason reason) {
  switch (reason) {
    case Reason::Unknown:
      return "Unknown";
    case Reason::BadRequest:
      return "BadRequest";
    case Reason::Unauthorized:
      return "Unauthorized";
    case Reason::Forbidden:
      return "Forbidden";
    case Reason::NotFound:
      return "NotFound";
    case Reason::MethodNotAllowed:
      return "MethodNotAllowed";
    case Reason::AlreadyExists:
      return "AlreadyExists";
    case Reason::Conflict:
      return "Conflict";
    case Reason::Gone:
      return "Gone";
    case Reason::Invalid:
      return "Invalid";
    case Reason::TooManyRequests:
      return "TooManyRequests";
    case Reason::InternalError:
      return "InternalError";
    case Reason::ServiceUnavailable:
      return "ServiceUnavailable";
    case Reason::Timeout:
      return "Timeout";
    case Reason::Transport:
      return "Transport";
  }
  return "Unknown";
}

ApiError::ApiError(Reason reason, int http_status, std::string message, std::vector<StatusCause> causes,
                   std::optional<int> retry_after_seconds)
    : std::runtime_error(http_status > 0 ? fmt::format("{} ({}): {}", to_string(reason), http_status, message)
                                         : fmt::format("{}: {}", to_string(reason), message)),
      reason_(reason),
      http_status_(http_status),
      message_(std::move(message)),
      causes_(std::move(causes)),
      retry_after_(retry_after_seconds) {}

bool ApiError::retryable() const {
  switch (reason_) {
    case Reason::TooManyRequests:
    case Reason::InternalError:
    case Reason::ServiceUnavailable:
    case Reason::Timeout:
    case Reason::Transport:
      return true;
    default:
      return false;
  }
}

Reason reason_from_http_status(int http_status) {
  switch (http_status) {
    case 400:
      return Reason::BadRequest;
    case 401:
      return Reason::Unauthorized;
    case 403:
      return Reason::Forbidden;
    case 404:
      return Reason::NotFound;
    case 405:
      return Reason::MethodNotAllowed;
    case 408:
      return Reason::Timeout;
    case 409:
      return Reason::Conflict;
    case 410:
      return Reason::Gone;
    case 422:
      return Reason::Invalid;
    case 429:
      return Reason::TooManyRequests;
    case 500:
      return Reason::InternalError;
    case 503:
      return Reason::ServiceUnavailable;
    case 504:
      return Reason::Timeout;
    default:
      return http_status >= 500 ? Reason::InternalError : Reason::Unknown;
  }
}

namespace {

// Status.reason strings (k8s.io/apimachinery metav1.StatusReason) we distinguish.
std::optional<Reason> reason_from_status_text(std::string_view text) {
  if (text == "NotFound") return Reason::NotFound;
  if (text == "AlreadyExists") return Reason::AlreadyExists;
  if (text == "Conflict") return Reason::Conflict;
  if (text == "Invalid") return Reason::Invalid;
  if (text == "Forbidden") return Reason::Forbidden;
  if (text == "Unauthorized") return Reason::Unauthorized;
  if (text == "Gone" || text == "Expired") return Reason::Gone;
  if (text == "Timeout" || text == "ServerTimeout") return Reason::Timeout;
  if (text == "TooManyRequests") return Reason::TooManyRequests;
  if (text == "InternalError") return Reason::InternalError;
  if (text == "ServiceUnavailable") return Reason::ServiceUnavailable;
  if (text == "BadRequest") return Reason::BadRequest;
  if (text == "MethodNotAllowed") return Reason::MethodNotAllowed;
  return std::nullopt;
}

std::string string_member(const rapidjson::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

}  // namespace

ApiError error_from_response(int http_status, std::string_view body, std::optional<int> retry_after_seconds) {
  Reason reason = reason_from_http_status(http_status);
  std::string message;
  std::vector<StatusCause> causes;

  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject() && string_member(doc, "kind") == "Status") {
    message = string_member(doc, "message");
    if (auto typed = reason_from_status_text(string_member(doc, "reason"))) {
      // The HTTP code wins for the few codes whose meaning is fixed, the body refines the rest
      // (409 is Conflict or AlreadyExists, 410 Gone or Expired, 504 Timeout or ServerTimeout).
      reason = *typed;
    }
    auto details = doc.FindMember("details");
    if (details != doc.MemberEnd() && details->value.IsObject()) {
      auto list = details->value.FindMember("causes");
      if (list != details->value.MemberEnd() && list->value.IsArray()) {
        for (const auto& c : list->value.GetArray()) {
          if (!c.IsObject()) continue;
          causes.push_back({string_member(c, "reason"), string_member(c, "field"), string_member(c, "message")});
        }
      }
      if (!retry_after_seconds) {
        auto ra = details->value.FindMember("retryAfterSeconds");
        if (ra != details->value.MemberEnd() && ra->value.IsInt()) retry_after_seconds = ra->value.GetInt();
      }
    }
  }
  if (message.empty()) {
    constexpr std::size_t kMaxQuoted = 200;  // a proxy's error page can be long; keep the error readable
    std::string_view head = body.substr(0, std::min(body.size(), kMaxQuoted));
    message = head.empty() ? fmt::format("HTTP {}", http_status) : fmt::format("HTTP {}: {}", http_status, head);
  }
  return ApiError(reason, http_status, std::move(message), std::move(causes), retry_after_seconds);
}

}  // namespace dha::kube
