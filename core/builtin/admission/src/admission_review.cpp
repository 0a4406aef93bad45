#include "json_parse.hpp"

#include "dha/admission/admission_review.hpp"

#include <charconv>
#include <cstdint>
#include <cstring>
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

// Whether any of the 8 bytes in `word` needs escaping in JSON: below 0x20, '"' or '\\'
// ("Bit Twiddling Hacks": hasless / haszero, exact for the any-byte question).
bool any_byte_needs_escape(std::uint64_t word) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t highs = 0x8080808080808080ULL;
  const auto has_zero_byte = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  const std::uint64_t below_space = (word - ones * 0x20) & ~word & highs;
  return (below_space | has_zero_byte(word ^ (ones * '"')) | has_zero_byte(word ^ (ones * '\\'))) != 0;
}

// Appends `text` as a JSON string escaped exactly as rapidjson::Writer escapes it: '"', '\\'
// and control bytes (\b \t \n \f \r by name, the others as \u00XX); every other byte, UTF-8 or
// not, verbatim. Plain runs are found 8 bytes at a time and appended in bulk (the Writer's
// per-byte Put cost ~12 instructions a byte, a third of the handler after parsing).
void append_json_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  out += '"';
  std::size_t run = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text.size() - i >= 8) {
      std::uint64_t word;
      std::memcpy(&word, text.data() + i, 8);
      if (!any_byte_needs_escape(word)) {
        i += 8;
        continue;
      }
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(text.data() + run, i - run);
    run = ++i;
    char escaped[6] = {'\\', static_cast<char>(c), 0, 0, 0, 0};
    std::size_t length = 2;
    switch (c) {
      case '"':
      case '\\':
        break;
      case '\b':
        escaped[1] = 'b';
        break;
      case '\t':
        escaped[1] = 't';
        break;
      case '\n':
        escaped[1] = 'n';
        break;
      case '\f':
        escaped[1] = 'f';
        break;
      case '\r':
        escaped[1] = 'r';
        break;
      default:
        escaped[1] = 'u';
        escaped[2] = '0';
        escaped[3] = '0';
        escaped[4] = hex[c >> 4];
        escaped[5] = hex[c & 15];
        length = 6;
    }
    out.append(escaped, length);
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

// {"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":...,
//  "allowed":...,"status":{"code":...,"reason":...,"message":...}}}
// Written directly: the layout is fixed, and one reserved string replaces the Writer's
// growing buffer and its copy.
std::string review_json(std::string_view uid, bool allowed, int code, std::string_view reason,
                        std::string_view message) {
  std::string out;
  out.reserve(128 + uid.size() + reason.size() + message.size() + message.size() / 8);
  out += R"({"apiVersion":")";
  out += api_version;
  out += R"(","kind":")";
  out += kind;
  out += R"(","response":{"uid":)";
  append_json_string(out, uid);
  out += allowed ? R"(,"allowed":true,"status":{"code":)" : R"(,"allowed":false,"status":{"code":)";
  char digits[16];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, code).ptr);
  if (!reason.empty()) {
    out += R"(,"reason":)";
    append_json_string(out, reason);
  }
  if (!message.empty()) {
    out += R"(,"message":)";
    append_json_string(out, message);
  }
  out += "}}}";
  return out;
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

}  // namespace

Decision ownership_decision(std::vector<std::string> allowed_users) {
  return [users = std::move(allowed_users)](const Value* old_object, const Value* new_object, std::string_view user) {
    return evaluate_ownership(old_object, new_object, user, users);
  };
}

std::string_view to_string(ReviewResult result) {
  switch (result) {
    case ReviewResult::allowed:
      return "allowed";
    case ReviewResult::denied:
      return "denied";
    case ReviewResult::errored:
      return "errored";
    case ReviewResult::bad_request:
      return "bad_request";
  }
  return "unknown";
}

ReviewReply handle_admission_review(std::string_view body, std::string_view content_type, const Decision& decide) {
  if (!is_json_content_type(content_type))
    return bad_request({}, "contentType=" + std::string(content_type) + ", expected application/json");
  if (body.empty()) return bad_request({}, "request body is empty");

  // Parsed in place in a NUL-terminated copy (the DOM's strings point into it). A UTF-8 BOM is
  // skipped, as RapidJSON's stream reader did before; offsets still count from the body start.
  constexpr std::string_view bom = "\xEF\xBB\xBF";
  const std::size_t skipped = body.substr(0, bom.size()) == bom ? bom.size() : 0;
  std::string text(body.substr(skipped));
  // Reviews are a few KiB: a stack arena spares the pool allocator's 64 KiB heap chunk per
  // request (it spills to the heap by itself for bigger ones).
  char arena[16 * 1024];
  rapidjson::MemoryPoolAllocator<> allocator(arena, sizeof arena);
  rapidjson::Document doc(&allocator);
  if (!detail::parse_json_in_place(doc, text.data()))
    return bad_request({}, std::string("malformed AdmissionReview: invalid JSON at offset ") +
                               std::to_string(doc.GetErrorOffset() + skipped) + ": " +
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
    OwnershipVerdict verdict =
        decide(object_member(*request, "oldObject"), object_member(*request, "object"), username);
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

}  // namespace dha::admission
