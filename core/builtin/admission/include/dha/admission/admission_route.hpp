#pragma once

// Serving one validating decision as an AdmissionReview route, with the webhook metrics every
// route of ours records (see mount_replicas_ownership_webhook for their names).

#include "dha/admission/admission_review.hpp"
#include "dha/server/http.hpp"

#include <functional>
#include <string>

namespace dha::telemetry {
class Registry;
}

namespace dha::admission {

// Asked before a review's body is parsed: false answers 429 (Retry-After: 1) without parsing
// or deciding it, keeping the connection open. Empty: every review is decided.
using ReviewBudget = std::function<bool(const server::Request&)>;

// Registers `decide` at `path`. The registry, when given, must outlive the router.
void mount_admission_review(server::Router& router, const std::string& path, Decision decide,
                            telemetry::Registry* metrics = nullptr, ReviewBudget budget = {});

}  // namespace dha::admission
