#include "pipeline/target_claim.hpp"

#include "dha/actuators/builtin_actuators.hpp"
#include "dha/admission/one_dha_per_target.hpp"
#include "dha/kube/json.hpp"

namespace dha::pipeline {

std::optional<Stop> claimed_by_another(kube::Client& client, const Target& target, const model::TargetRef& ref,
                                       const std::string& ns, const std::string& dha_name,
                                       std::optional<std::int32_t> current) {
  if (!target.object) return std::nullopt;
  const std::string holder = actuators::managed_by(*target.object);
  if (holder.empty() || holder == dha_name) return std::nullopt;
  const auto other = client.get_if_exists(kube::resources::dhas(ns).named(holder));
  if (!other || kube::find_path(*other, {"metadata", "deletionTimestamp"}) != nullptr) return std::nullopt;
  admission::TargetClaim wanted{dha_name, ref.api_group, ref.kind, ref.name, false};
  return Stop{kTargetClaimed, admission::claimed_message(wanted, holder), current};
}

}  // namespace dha::pipeline
