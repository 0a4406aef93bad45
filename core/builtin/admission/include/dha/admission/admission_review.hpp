#pragma once

// The admission.k8s.io/v1 AdmissionReview envelope around a validating decision, independent
// of any HTTP server (the fuzzer and the benchmark drive it directly).
//
// Contract, after controller-runtime's pkg/webhook/admission:
//  - every response that could read a request uid carries it;
//  - a malformed review (wrong content type, empty body, invalid JSON, wrong apiVersion or kind,
//    no request, no uid) is answered with HTTP 400 and a message that says what is wrong;
//  - an exception thrown by the decision becomes an errored review: HTTP 200, allowed=false,
//    status code 500 and the exception's message;
//  - nothing here throws, crashes or recurses on input depth.

#include "dha/admission/ownership_policy.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::admission {

// old object, new object (nullptr when absent), request.userInfo.username.
using Decision = std::function<OwnershipVerdict(const rapidjson::Value*, const rapidjson::Value*, std::string_view)>;

// The replicas-ownership decision with these allowed identities.
Decision ownership_decision(std::vector<std::string> allowed_users);

enum class ReviewResult { allowed, denied, errored, bad_request };

struct ReviewReply {
  int http_status = 200;
  std::string content_type = "application/json";
  std::string body;
  ReviewResult result = ReviewResult::allowed;
  std::string uid;  // empty when the request had none we could read
};

ReviewReply handle_admission_review(std::string_view body, std::string_view content_type, const Decision& decide);

std::string_view to_string(ReviewResult result);

}  // namespace dha::admission
