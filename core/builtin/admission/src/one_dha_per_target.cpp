#include "dha/admission/one_dha_per_target.hpp"
#include "dha/model/spec.hpp"

namespace dha::admission {

namespace {

using rapidjson::Value;

const Value* member(const Value* object, const char* name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  auto it = object->FindMember(name);
  return it == object->MemberEnd() ? nullptr : &it->value;
}

std::string string_of(const Value* v) {
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

}  // namespace

std::optional<TargetClaim> claim_of(const Value& dha) {
  const Value* metadata = member(&dha, "metadata");
  const Value* ref = member(member(&dha, "spec"), "targetRef");
  TargetClaim claim;
  claim.dha_name = string_of(member(metadata, "name"));
  claim.api_group = string_of(member(ref, "apiGroup"));
  if (claim.api_group.empty()) claim.api_group = model::kDefaultApiGroup;
  claim.kind = string_of(member(ref, "kind"));
  claim.target_name = string_of(member(ref, "name"));
  claim.deleting = member(metadata, "deletionTimestamp") != nullptr && !member(metadata, "deletionTimestamp")->IsNull();
  if (claim.kind.empty() || claim.target_name.empty()) return std::nullopt;
  return claim;
}

std::vector<TargetClaim> claims_of_list(const Value& list) {
  std::vector<TargetClaim> claims;
  const Value* items = member(&list, "items");
  if (items == nullptr || !items->IsArray()) return claims;
  for (const auto& dha : items->GetArray())
    if (auto claim = claim_of(dha)) claims.push_back(std::move(*claim));
  return claims;
}

std::string namespace_of(const Value& object) { return string_of(member(member(&object, "metadata"), "namespace")); }

std::string claimed_message(const TargetClaim& wanted, std::string_view holder) {
  return wanted.kind + "/" + wanted.target_name + " is already scaled by DatabaseHorizontalAutoscaler \"" +
         std::string(holder) + "\"; two autoscalers on one database would undo each other's changes. Edit \"" +
         std::string(holder) + "\" or delete it first";
}

std::string claimed_in_namespace_message(const TargetClaim& wanted) {
  return wanted.kind + "/" + wanted.target_name +
         " is already scaled by another DatabaseHorizontalAutoscaler in this namespace (kubectl get dha lists them); "
         "two autoscalers on one database would undo each other's changes. Edit that one or delete it first";
}

OwnershipVerdict evaluate_target_claim(const Value* old_object, const Value* new_object,
                                       const std::vector<TargetClaim>& others) {
  if (new_object == nullptr || !new_object->IsObject()) return {};
  const auto wanted = claim_of(*new_object);
  if (!wanted) return {};
  if (old_object != nullptr && old_object->IsObject()) {
    const auto before = claim_of(*old_object);
    if (before && before->same_target(*wanted)) return {};
  }
  for (const auto& other : others) {
    if (other.dha_name == wanted->dha_name || other.deleting || !other.same_target(*wanted)) continue;
    return {false, 403, "Forbidden", claimed_in_namespace_message(*wanted)};
  }
  return {};
}

}  // namespace dha::admission
