#pragma once
// A Kubernetes API error: thrown anywhere in request handling, rendered once as a
// meta/v1 Status object with the same code/reason/message shape kube-apiserver uses.

#include <stdexcept>
#include <string>
#include <vector>

namespace dha::testing::apiserver {

struct StatusCause {
  std::string reason;   // e.g. FieldValueRequired
  std::string message;  // e.g. "Required value"
  std::string field;    // e.g. spec.minReplicas
};

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, const std::string& message)
      : std::runtime_error(message), code_(code), reason_(std::move(reason)) {}

  int code() const { return code_; }
  const std::string& reason() const { return reason_; }

  // Optional details (name/group/kind/causes), as in Status.details.
  std::string detail_name, detail_group, detail_kind;
  std::vector<StatusCause> causes;
  int retry_after_seconds = 0;

 private:
  int code_;
  std::string reason_;
};

// Builders for the common errors, with kube-apiserver's wording.
// `resource` is the plural resource with group, e.g. "postgreses.apps.cozystack.io" or "namespaces".
ApiError not_found(const std::string& resource_with_group, const std::string& name);
ApiError already_exists(const std::string& resource_with_group, const std::string& name);
ApiError conflict(const std::string& resource_with_group, const std::string& name, const std::string& why);
ApiError bad_request(const std::string& message);
ApiError method_not_allowed(const std::string& message);
ApiError unsupported_media_type(const std::string& content_type);
ApiError internal_error(const std::string& message);

// Renders a Status (kind Status, apiVersion v1, status Failure) as JSON.
std::string status_json(const ApiError& error);
// A Status with status Success (used for DELETE of collections and some deletes).
std::string success_status_json(const std::string& name, const std::string& group, const std::string& kind,
                                const std::string& uid);

}  // namespace dha::testing::apiserver
