#include "json_parse.hpp"

#include <dha/admission/admission_review.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <exception>

namespace dha::admission {

namespace {

using rapidjson::Value;

constexpr std::string_view api_version = "admission.k8s.io/v1";
constexpr std::string_view kind = "AdmissionReview";

std::string_view string_member(const Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

const Value* object_member(const Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd()) return nullptr;
  return &it->value;
}

// {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":...,
//  "allowed":...,"status":{"code":...,"reason":...,"message":...}}}
std::string review_json(std::string_view uid, bool allowed, int code, std::string_view reason,
                        std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&](std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  w.StartObject();
  w.Key("apiVersion");
  str(api_version);
  w.Key("kind");
  str(kind);
  w.Key("response");
  w.StartObject();
  w.Key("uid");
  str(uid);
  w.Key("allowed");
  w.Bool(allowed);
  w.Key("status");
  w.StartObject();
  w.Key("code");
  w.Int(code);
  if (!reason.empty()) {
    w.Key("reason");
    str(reason);
  }
  if (!message.empty()) {
    w.Key("message");
    str(message);
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

ReviewReply bad_request(std::string_view uid, const std::string& message) {
  ReviewReply reply;
  reply.http_status = 400;
  reply.result = ReviewResult::bad_request;
  reply.uid = std::string(uid);
  reply.body = review_json(uid, false, 400, "BadRequest", message);
  return reply;
}

bool is_json_content_type(std::string_view content_type) {
  auto media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && media.back() == ' ') media.remove_suffix(1);
  return media == "application/json";
}

} // namespace

Decision ownership_decision(std::vector<std::string> allowed_users) {
  return [users = std::move(allowed_users)](const Value* old_object, const Value* new_object, std::string_view user) {
    return evaluate_ownership(old_object, new_object, user, users);
  };
}

std::string_view to_string(ReviewResult result) {
  switch (result) {
  case ReviewResult::allowed: return "allowed";
  case ReviewResult::denied: return "denied";
  case ReviewResult::errored: return "errored";
  case ReviewResult::bad_request: return "bad_request";
  }
  return "unknown";
}

ReviewReply handle_admission_review(std::string_view body, std::string_view content_type, const Decision& decide) {
  if (!is_json_content_type(content_type))
    return bad_request({}, "contentType=" + std::string(content_type) + ", expected application/json");
  if (body.empty()) return bad_request({}, "request body is empty");

  // Reviews are a few KiB: a stack arena spares the pool allocator's 64 KiB heap chunk per
  // request (it spills to the heap by itself for bigger ones).
  char arena[16 * 1024];
  rapidjson::MemoryPoolAllocator<> allocator(arena, sizeof arena);
  rapidjson::Document doc(&allocator);
  if (!detail::parse_json(doc, body))
    return bad_request({}, std::string("malformed AdmissionReview: invalid JSON at offset ") +
                               std::to_string(doc.GetErrorOffset()) + ": " +
                               rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsObject()) return bad_request({}, "malformed AdmissionReview: the body is not a JSON object");

  const auto got_version = string_member(doc, "apiVersion");
  const auto got_kind = string_member(doc, "kind");
  if (got_version != api_version || got_kind != kind)
    return bad_request({}, "malformed AdmissionReview: expected apiVersion " + std::string(api_version) + " kind " +
                               std::string(kind) + ", got apiVersion \"" + std::string(got_version) + "\" kind \"" +
                               std::string(got_kind) + "\"");

  const Value* request = object_member(doc, "request");
  if (request == nullptr || !request->IsObject())
    return bad_request({}, "malformed AdmissionReview: request is missing or not an object");
  const auto uid = string_member(*request, "uid");
  if (uid.empty()) return bad_request({}, "malformed AdmissionReview: request.uid is missing or not a string");

  std::string_view username;
  if (const Value* user_info = object_member(*request, "userInfo"); user_info != nullptr && user_info->IsObject())
    username = string_member(*user_info, "username");

  ReviewReply reply;
  reply.uid = std::string(uid);
  try {
    OwnershipVerdict verdict = decide(object_member(*request, "oldObject"), object_member(*request, "object"), username);
    reply.result = verdict.allowed ? ReviewResult::allowed : ReviewResult::denied;
    reply.body = review_json(uid, verdict.allowed, verdict.code, verdict.reason, verdict.message);
  } catch (const std::exception& e) {
    reply.result = ReviewResult::errored;
    reply.body = review_json(uid, false, 500, "InternalError", e.what());
  } catch (...) {
    reply.result = ReviewResult::errored;
    reply.body = review_json(uid, false, 500, "InternalError", "unknown error in the admission handler");
  }
  return reply;
}

} // namespace dha::admission
