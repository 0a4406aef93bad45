#include <dha/admission/admission_route.hpp>
#include <dha/admission/one_dha_per_target_webhook.hpp>

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
  mount_admission_review(router, options.path, std::move(decide), metrics);
}

}  // namespace dha::admission
