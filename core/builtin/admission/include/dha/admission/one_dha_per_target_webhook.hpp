#pragma once

// Mounting the one-DHA-per-target webhook (DHA CREATE and UPDATE). The caller supplies how to
// list the DHAs of a namespace: the operator lists them live from the API server, so a DHA
// created a moment ago by someone else is seen.

#include <dha/admission/one_dha_per_target.hpp>
#include <dha/server/http.hpp>

#include <functional>
#include <string>
#include <vector>

namespace dha::telemetry {
class Registry;
}

namespace dha::admission {

// The claims of every DHA in a namespace. Throws when it cannot tell: the review then fails
// with the reason (an errored review denies; the operator's own check still applies).
using NamespaceClaims = std::function<std::vector<TargetClaim>(const std::string& ns)>;

struct OneDhaPerTargetWebhookOptions {
  std::string path = "/validate-dha-target";
};

void mount_one_dha_per_target_webhook(server::Router& router, const OneDhaPerTargetWebhookOptions& options,
                                      NamespaceClaims claims, telemetry::Registry* metrics = nullptr);

} // namespace dha::admission
