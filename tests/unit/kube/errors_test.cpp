#include <gtest/gtest.h>

#include "dha/kube/errors.hpp"

namespace dha::kube {
namespace {

struct ErrorCase {
  const char* name;
  int status;
  std::string body;
  Reason want;
  bool retryable;
};

class KubeErrorMapping : public testing::TestWithParam<ErrorCase> {};

TEST_P(KubeErrorMapping, ReasonFromStatusAndBody) {
  const auto& c = GetParam();
  const ApiError e = error_from_response(c.status, c.body);
  EXPECT_EQ(e.reason(), c.want) << to_string(e.reason());
  EXPECT_EQ(e.http_status(), c.status);
  EXPECT_EQ(e.retryable(), c.retryable);
  EXPECT_FALSE(e.message().empty());
}

std::string status_body(int code, const char* reason, const char* message) {
  return std::string(R"({"kind":"Status","apiVersion":"v1","status":"Failure","code":)") + std::to_string(code) +
         R"(,"reason":")" + reason + R"(","message":")" + message + R"("})";
}

INSTANTIATE_TEST_SUITE_P(
    Table, KubeErrorMapping,
    testing::Values(
        ErrorCase{"not_found", 404, status_body(404, "NotFound", "pods \"x\" not found"), Reason::NotFound, false},
        ErrorCase{"already_exists_is_409_refined", 409, status_body(409, "AlreadyExists", "exists"),
                  Reason::AlreadyExists, false},
        ErrorCase{"conflict", 409, status_body(409, "Conflict", "the object has been modified"), Reason::Conflict,
                  false},
        ErrorCase{"invalid", 422, status_body(422, "Invalid", "spec.x: Invalid value"), Reason::Invalid, false},
        ErrorCase{"forbidden", 403, status_body(403, "Forbidden", "no"), Reason::Forbidden, false},
        ErrorCase{"unauthorized", 401, status_body(401, "Unauthorized", "Unauthorized"), Reason::Unauthorized, false},
        ErrorCase{"gone", 410, status_body(410, "Gone", "too old"), Reason::Gone, false},
        ErrorCase{"expired_is_gone", 410, status_body(410, "Expired", "too old resource version"), Reason::Gone, false},
        ErrorCase{"server_timeout", 504, status_body(504, "ServerTimeout", "slow"), Reason::Timeout, true},
        ErrorCase{"too_many", 429, status_body(429, "TooManyRequests", "slow down"), Reason::TooManyRequests, true},
        ErrorCase{"internal", 500, status_body(500, "InternalError", "boom"), Reason::InternalError, true},
        ErrorCase{"html_body_uses_code", 503, "<html>bad gateway</html>", Reason::ServiceUnavailable, true},
        ErrorCase{"empty_body_uses_code", 404, "", Reason::NotFound, false},
        ErrorCase{"garbage_json", 409, "{not json", Reason::Conflict, false},
        ErrorCase{"unknown_reason_uses_code", 403, status_body(403, "SomethingNew", "x"), Reason::Forbidden, false},
        ErrorCase{"unknown_5xx", 502, "", Reason::InternalError, true},
        ErrorCase{"unknown_4xx", 418, "", Reason::Unknown, false}),
    [](const testing::TestParamInfo<ErrorCase>& info) { return std::string(info.param.name); });

TEST(KubeErrorMapping, CausesAndRetryAfterAreKept) {
  const std::string body = R"({"kind":"Status","code":422,"reason":"Invalid","message":"bad",
    "details":{"retryAfterSeconds":7,"causes":[{"reason":"FieldValueInvalid","field":"spec.maxReplicas","message":"must be >= minReplicas"}]}})";
  const ApiError e = error_from_response(422, body);
  ASSERT_EQ(e.causes().size(), 1u);
  EXPECT_EQ(e.causes()[0].field, "spec.maxReplicas");
  EXPECT_EQ(e.causes()[0].reason, "FieldValueInvalid");
  EXPECT_EQ(e.retry_after_seconds(), 7);
  EXPECT_EQ(e.message(), "bad");
}

TEST(KubeErrorMapping, HeaderRetryAfterWinsOverBody) {
  const ApiError e = error_from_response(429, R"({"kind":"Status","details":{"retryAfterSeconds":9}})", 3);
  EXPECT_EQ(e.retry_after_seconds(), 3);
}

TEST(KubeErrorMapping, LongNonStatusBodyIsTruncatedInMessage) {
  const ApiError e = error_from_response(500, std::string(10000, 'x'));
  EXPECT_LT(e.message().size(), 300u);
}

TEST(KubeErrorMapping, TransportErrorHasNoStatus) {
  const ApiError e(Reason::Transport, 0, "connection refused");
  EXPECT_TRUE(e.retryable());
  EXPECT_EQ(std::string(e.what()), "Transport: connection refused");
}

}  // namespace
}  // namespace dha::kube
