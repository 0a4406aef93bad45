#pragma once

// Serving one validating decision as an AdmissionReview route, with the webhook metrics every
// route of ours records (see mount_replicas_ownership_webhook for their names).

#include <dha/admission/admission_review.hpp>
#include <dha/server/http.hpp>

#include <string>

namespace dha::telemetry {
class Registry;
}

namespace dha::admission {

// Registers `decide` at `path`. The registry, when given, must outlive the router.
void mount_admission_review(server::Router& router, const std::string& path, Decision decide,
                            telemetry::Registry* metrics = nullptr);

}  // namespace dha::admission
