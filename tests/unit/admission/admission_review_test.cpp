#include "dha/admission/admission_review.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>

#include <stdexcept>
#include <string>

namespace dha::admission {
namespace {

const Decision ownership = ownership_decision({std::string(default_apps_api_username)});

std::string review(const std::string& request_body) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + request_body + "}";
}

std::string managed(int replicas, bool marker = true) {
  std::string annotations =
      marker ? R"("annotations":{")" + std::string(managed_by_annotation) + R"(":"db"})" : R"("annotations":{})";
  return R"({"metadata":{"name":"r",)" + annotations + R"(},"spec":{"values":{"replicas":)" + std::to_string(replicas) +
         "}}}";
}

std::string update(const std::string& user, int from, int to) {
  return review(R"({"uid":"u-1","operation":"UPDATE","userInfo":{"username":")" + user +
                R"(","groups":["g"]},"oldObject":)" + managed(from) + R"(,"object":)" + managed(to) + "}");
}

struct Parsed {
  rapidjson::Document doc;
  const rapidjson::Value& response() const { return doc["response"]; }
};

void parse(Parsed& out, const ReviewReply& reply) {
  out.doc.Parse(reply.body.c_str());
  ASSERT_FALSE(out.doc.HasParseError()) << reply.body;
  ASSERT_TRUE(out.doc.IsObject());
  EXPECT_STREQ(out.doc["apiVersion"].GetString(), "admission.k8s.io/v1");
  EXPECT_STREQ(out.doc["kind"].GetString(), "AdmissionReview");
  ASSERT_TRUE(out.doc.HasMember("response"));
}

TEST(AdmissionReview, AllowedResponseCarriesUidAndCode200) {
  auto reply =
      handle_admission_review(update(std::string(default_apps_api_username), 3, 5), "application/json", ownership);
  EXPECT_EQ(reply.http_status, 200);
  EXPECT_EQ(reply.result, ReviewResult::allowed);
  Parsed p;
  parse(p, reply);
  EXPECT_STREQ(p.response()["uid"].GetString(), "u-1");
  EXPECT_TRUE(p.response()["allowed"].GetBool());
  EXPECT_EQ(p.response()["status"]["code"].GetInt(), 200);
  EXPECT_FALSE(p.response()["status"].HasMember("message"));
}

TEST(AdmissionReview, DeniedResponseCarriesUidMessageAnd403) {
  auto reply = handle_admission_review(update("bob", 3, 5), "application/json; charset=utf-8", ownership);
  EXPECT_EQ(reply.http_status, 200);
  EXPECT_EQ(reply.result, ReviewResult::denied);
  Parsed p;
  parse(p, reply);
  EXPECT_STREQ(p.response()["uid"].GetString(), "u-1");
  EXPECT_FALSE(p.response()["allowed"].GetBool());
  EXPECT_EQ(p.response()["status"]["code"].GetInt(), 403);
  EXPECT_STREQ(p.response()["status"]["reason"].GetString(), "Forbidden");
  EXPECT_STREQ(p.response()["status"]["message"].GetString(),
               "replicas of this database is managed by DatabaseHorizontalAutoscaler \"db\"; delete the DHA to regain "
               "manual control (attempted change 3 -> 5 by \"bob\")");
}

TEST(AdmissionReview, MissingUserInfoIsAnUnknownIdentity) {
  auto body = review(R"({"uid":"u-2","oldObject":)" + managed(3) + R"(,"object":)" + managed(4) + "}");
  auto reply = handle_admission_review(body, "application/json", ownership);
  EXPECT_EQ(reply.result, ReviewResult::denied);
  EXPECT_EQ(reply.uid, "u-2");
}

TEST(AdmissionReview, CreateOfAManagedReleaseIsDeniedAndOfAnUnmanagedOneAllowed) {
  auto body = review(R"({"uid":"u-3","operation":"CREATE","userInfo":{"username":"bob"},"object":)" + managed(4) + "}");
  EXPECT_EQ(handle_admission_review(body, "application/json", ownership).result, ReviewResult::denied);
  auto unmanaged =
      review(R"({"uid":"u-4","operation":"CREATE","userInfo":{"username":"bob"},"object":)" + managed(4, false) + "}");
  EXPECT_EQ(handle_admission_review(unmanaged, "application/json", ownership).result, ReviewResult::allowed);
}

TEST(AdmissionReview, DeleteOfAManagedReleaseIsDenied) {
  auto body = review(R"({"uid":"u-5","operation":"DELETE","userInfo":{"username":"bob"},"oldObject":)" + managed(3) +
                     R"(,"object":null})");
  auto reply = handle_admission_review(body, "application/json", ownership);
  EXPECT_EQ(reply.result, ReviewResult::denied);
  EXPECT_NE(reply.body.find("attempted deletion by"), std::string::npos) << reply.body;
}

struct BadCase {
  const char* name;
  std::string body;
  std::string content_type;
  std::string message_part;
};

TEST(AdmissionReview, MalformedReviewsAreHttp400WithAClearMessage) {
  const BadCase cases[] = {
      {"wrong content type", update("bob", 3, 4), "text/plain", "expected application/json"},
      {"no content type", update("bob", 3, 4), "", "expected application/json"},
      {"empty body", "", "application/json", "request body is empty"},
      {"invalid JSON", "{\"apiVersion\":", "application/json", "invalid JSON at offset"},
      {"trailing garbage", update("bob", 3, 4) + "x", "application/json", "invalid JSON"},
      {"not an object", "[]", "application/json", "not a JSON object"},
      {"v1beta1 review", R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{"uid":"x"}})",
       "application/json", "expected apiVersion admission.k8s.io/v1"},
      {"wrong kind", R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod","request":{"uid":"x"}})", "application/json",
       "kind \"Pod\""},
      {"no request", R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "application/json",
       "request is missing"},
      {"request not object", review("7"), "application/json", "request is missing or not an object"},
      {"no uid", review(R"({"object":{}})"), "application/json", "request.uid is missing"},
      {"uid not string", review(R"({"uid":5})"), "application/json", "request.uid is missing"},
      {"deep nesting", std::string(100000, '[') + std::string(100000, ']'), "application/json", "not a JSON object"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto reply = handle_admission_review(c.body, c.content_type, ownership);
    EXPECT_EQ(reply.http_status, 400);
    EXPECT_EQ(reply.result, ReviewResult::bad_request);
    Parsed p;
    parse(p, reply);
    EXPECT_FALSE(p.response()["allowed"].GetBool());
    EXPECT_EQ(p.response()["status"]["code"].GetInt(), 400);
    std::string message = p.response()["status"]["message"].GetString();
    EXPECT_NE(message.find(c.message_part), std::string::npos) << message;
  }
}

TEST(AdmissionReview, ExceptionInTheDecisionIsAnErroredResponseWithUid) {
  Decision throwing = [](const rapidjson::Value*, const rapidjson::Value*, std::string_view) -> OwnershipVerdict {
    throw std::runtime_error("boom: decision failed");
  };
  auto reply = handle_admission_review(update("bob", 3, 4), "application/json", throwing);
  EXPECT_EQ(reply.http_status, 200);
  EXPECT_EQ(reply.result, ReviewResult::errored);
  Parsed p;
  parse(p, reply);
  EXPECT_STREQ(p.response()["uid"].GetString(), "u-1");
  EXPECT_FALSE(p.response()["allowed"].GetBool());
  EXPECT_EQ(p.response()["status"]["code"].GetInt(), 500);
  EXPECT_STREQ(p.response()["status"]["message"].GetString(), "boom: decision failed");
}

TEST(AdmissionReview, NonStandardExceptionIsStillAnErroredResponse) {
  Decision throwing = [](const rapidjson::Value*, const rapidjson::Value*, std::string_view) -> OwnershipVerdict {
    throw 42;
  };
  auto reply = handle_admission_review(update("bob", 3, 4), "application/json", throwing);
  EXPECT_EQ(reply.result, ReviewResult::errored);
  EXPECT_NE(reply.body.find("\"code\":500"), std::string::npos);
}

// The response is written by hand for speed; it must stay byte-identical to what
// rapidjson::Writer produced before, for every byte a uid, reason or message can carry.
std::string writer_reference(std::string_view uid, bool allowed, int code, std::string_view reason,
                             std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto str = [&](std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  w.StartObject();
  w.Key("apiVersion");
  str("admission.k8s.io/v1");
  w.Key("kind");
  str("AdmissionReview");
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

// A JSON string literal that decodes to exactly `bytes` (\u00XX for anything but plain ASCII
// letters and digits; raw bytes >= 0x80 pass through, RapidJSON does not validate them).
std::string json_literal(std::string_view bytes) {
  std::string out = "\"";
  for (unsigned char c : bytes) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80) {
      out += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\u%04x", c);
      out += hex;
    }
  }
  return out + "\"";
}

TEST(AdmissionReview, ResponseBytesMatchRapidJsonWriterForEveryEscape) {
  std::string all_bytes;
  for (int c = 1; c < 256; ++c) all_bytes += static_cast<char>(c);
  const std::string cases[] = {
      "",
      "plain",
      "exactly8",
      "sixteen-chars-ok",
      std::string("nul\0inside", 10),
      "quote\" backslash\\ slash/ tab\t newline\n cr\r ff\f bs\b bell\a esc\x1b del\x7f",
      "\"\"\"\"\"\"\"\"\\\\\\\\\\\\\\\\",           // escapes filling whole 8-byte words
      "0123456\n0123456\"0123456\\",                // an escape at the end of each word
      "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80",  // UTF-8 passes through
      "\xff\xfe invalid UTF-8 \xc3",                // so does invalid UTF-8
      all_bytes,
      std::string(1000, 'x') + "\x01" + std::string(1000, 'y'),
  };
  for (const auto& text : cases) {
    SCOPED_TRACE(testing::PrintToString(text));
    Decision echo = [&](const rapidjson::Value*, const rapidjson::Value*, std::string_view) {
      OwnershipVerdict verdict;
      verdict.allowed = false;
      verdict.code = 403;
      verdict.reason = text;
      verdict.message = text + text;
      return verdict;
    };
    const std::string body = review(R"({"uid":)" + json_literal(text + "-uid") + "}");
    auto reply = handle_admission_review(body, "application/json", echo);
    EXPECT_EQ(reply.uid, text + "-uid");
    EXPECT_EQ(reply.body, writer_reference(text + "-uid", false, 403, text, text + text));
  }
}

TEST(AdmissionReview, ByteOrderMarkIsSkippedAndErrorOffsetsCountFromTheBodyStart) {
  const std::string bom = "\xEF\xBB\xBF";
  EXPECT_EQ(handle_admission_review(bom + update("bob", 3, 5), "application/json", ownership).result,
            ReviewResult::denied);
  // A lone 0xEF is not a byte order mark (RapidJSON's stream reader used to drop it).
  EXPECT_EQ(handle_admission_review("\xEF" + update("bob", 3, 5), "application/json", ownership).result,
            ReviewResult::bad_request);
  auto reply = handle_admission_review(bom + "{\"apiVersion\" 1}", "application/json", ownership);
  EXPECT_EQ(reply.result, ReviewResult::bad_request);
  EXPECT_NE(reply.body.find("invalid JSON at offset 17:"), std::string::npos) << reply.body;
}

}  // namespace
}  // namespace dha::admission
