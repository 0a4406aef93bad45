#include "api_error.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace dha::testing::apiserver {

namespace {
std::string name_part(const std::string& resource, const std::string& name) {
  return name.empty() ? resource : resource + " \"" + name + "\"";
}

void split_group(const std::string& resource_with_group, std::string& group, std::string& resource) {
  auto dot = resource_with_group.find('.');
  resource = resource_with_group.substr(0, dot);
  group = dot == std::string::npos ? "" : resource_with_group.substr(dot + 1);
}

ApiError with_details(ApiError error, const std::string& resource_with_group, const std::string& name) {
  split_group(resource_with_group, error.detail_group, error.detail_kind);
  error.detail_name = name;
  return error;
}
}  // namespace

ApiError not_found(const std::string& resource_with_group, const std::string& name) {
  return with_details(ApiError(404, "NotFound", name_part(resource_with_group, name) + " not found"),
                      resource_with_group, name);
}

ApiError already_exists(const std::string& resource_with_group, const std::string& name) {
  return with_details(ApiError(409, "AlreadyExists", name_part(resource_with_group, name) + " already exists"),
                      resource_with_group, name);
}

ApiError conflict(const std::string& resource_with_group, const std::string& name, const std::string& why) {
  return with_details(ApiError(409, "Conflict",
                               "Operation cannot be fulfilled on " + name_part(resource_with_group, name) + ": " + why),
                      resource_with_group, name);
}

ApiError bad_request(const std::string& message) { return ApiError(400, "BadRequest", message); }

ApiError method_not_allowed(const std::string& message) { return ApiError(405, "MethodNotAllowed", message); }

ApiError unsupported_media_type(const std::string& content_type) {
  return ApiError(415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types include: "
                  "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml" +
                      std::string(content_type.empty() ? "" : " (got " + content_type + ")"));
}

ApiError internal_error(const std::string& message) {
  return ApiError(500, "InternalError", "Internal error occurred: " + message);
}

std::string status_json(const ApiError& error) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("Status");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  w.Key("status");
  w.String("Failure");
  w.Key("message");
  w.String(error.what());
  if (!error.reason().empty()) {
    w.Key("reason");
    w.String(error.reason());
  }  // omitempty, as in kube
  bool has_details = !error.detail_name.empty() || !error.detail_kind.empty() || !error.causes.empty() ||
                     error.retry_after_seconds > 0;
  if (has_details) {
    w.Key("details");
    w.StartObject();
    if (!error.detail_name.empty()) {
      w.Key("name");
      w.String(error.detail_name);
    }
    if (!error.detail_group.empty()) {
      w.Key("group");
      w.String(error.detail_group);
    }
    if (!error.detail_kind.empty()) {
      w.Key("kind");
      w.String(error.detail_kind);
    }
    if (!error.causes.empty()) {
      w.Key("causes");
      w.StartArray();
      for (const auto& cause : error.causes) {
        w.StartObject();
        w.Key("reason");
        w.String(cause.reason);
        w.Key("message");
        w.String(cause.message);
        if (!cause.field.empty()) {
          w.Key("field");
          w.String(cause.field);
        }
        w.EndObject();
      }
      w.EndArray();
    }
    if (error.retry_after_seconds > 0) {
      w.Key("retryAfterSeconds");
      w.Int(error.retry_after_seconds);
    }
    w.EndObject();
  }
  w.Key("code");
  w.Int(error.code());
  w.EndObject();
  return buffer.GetString();
}

std::string success_status_json(const std::string& name, const std::string& group, const std::string& kind,
                                const std::string& uid) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("kind");
  w.String("Status");
  w.Key("apiVersion");
  w.String("v1");
  w.Key("metadata");
  w.StartObject();
  w.EndObject();
  w.Key("status");
  w.String("Success");
  w.Key("details");
  w.StartObject();
  w.Key("name");
  w.String(name);
  if (!group.empty()) {
    w.Key("group");
    w.String(group);
  }
  w.Key("kind");
  w.String(kind);
  if (!uid.empty()) {
    w.Key("uid");
    w.String(uid);
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

}  // namespace dha::testing::apiserver
