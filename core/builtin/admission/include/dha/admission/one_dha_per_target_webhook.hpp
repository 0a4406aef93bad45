#pragma once

// Mounting the one-DHA-per-target webhook (DHA CREATE and UPDATE). The caller supplies how to
// read the claims of a namespace: the operator reads them from its DHA cache, so a review costs
// no API request. The review answers about the namespace of the object it carries only, and a
// denial names no other DHA (the endpoint does not authenticate its caller; see
// docs/operator.md#webhooks): the reconciler's condition on the refused DHA names the holder.

#include "dha/admission/one_dha_per_target.hpp"
#include "dha/server/http.hpp"

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
  // What one peer address may have reviewed, unless it is in the server's configured trusted
  // networks (the API server's CIDRs): anyone who reaches the port can post reviews, and
  // without a limit one caller's forged ones would take the webhook's threads. A review costs 1
  // plus 1 per whole 64 KiB of its body; past the budget it is answered 429 before it is parsed.
  // The API server's own DHA writes (tenants' and the operator's finalizer updates) stay far
  // below it; above it, a 429 is a failed call under the configuration's failure policy.
  double per_peer_per_second = 100;
  double per_peer_burst = 500;
};

void mount_one_dha_per_target_webhook(server::Router& router, const OneDhaPerTargetWebhookOptions& options,
                                      NamespaceClaims claims, telemetry::Registry* metrics = nullptr);

}  // namespace dha::admission
