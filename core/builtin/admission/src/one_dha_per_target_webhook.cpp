#include "dha/admission/one_dha_per_target_webhook.hpp"
#include "dha/admission/admission_route.hpp"
#include "dha/server/review_cache.hpp"

#include <algorithm>
#include <memory>

namespace dha::admission {

void mount_one_dha_per_target_webhook(server::Router& router, const OneDhaPerTargetWebhookOptions& options,
                                      NamespaceClaims claims, telemetry::Registry* metrics) {
  auto decide = [claims = std::move(claims)](const rapidjson::Value* old_object, const rapidjson::Value* new_object,
                                             std::string_view) {
    if (new_object == nullptr || !new_object->IsObject() || !claim_of(*new_object)) return OwnershipVerdict{};
    const std::string ns = namespace_of(*new_object);
    if (ns.empty()) return OwnershipVerdict{};  // nothing to compare against; the operator checks again
    return evaluate_target_claim(old_object, new_object, claims(ns));
  };
  // No total cap: one would let forgers spend the API server's share.
  constexpr double unbounded = 1e12;
  auto limiter = std::make_shared<server::AttemptLimiter>(
      server::AttemptLimiter::Limits{options.per_peer_per_second, options.per_peer_burst, unbounded, unbounded, 4096});
  auto budget = [limiter, burst = options.per_peer_burst](const server::Request& request) {
    if (request.from_trusted_network) return true;
    // One for the review, one more for each whole 64 KB of its body (a whole number on purpose).
    const std::size_t whole_64k = request.body.size() / 65536;
    const auto cost = static_cast<double>(1 + whole_64k);
    return limiter->try_take(server::peer_address(request.remote_address), std::min(cost, burst));
  };
  mount_admission_review(router, options.path, std::move(decide), metrics, std::move(budget));
}

}  // namespace dha::admission
