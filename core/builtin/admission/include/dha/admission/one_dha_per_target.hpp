#pragma once

// One DHA per target. Two autoscalers on one database fight: each scales from its own history
// and takes the managed-by marker from the other. A second DHA whose target is already claimed
// in the namespace is refused at admission. Pure:
// the caller lists the namespace's DHAs; tests in tests/unit/admission.

#include <rapidjson/document.h>
#include "dha/admission/ownership_policy.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::admission {

// What a DHA claims: its target, with the empty apiGroup read as apps.cozystack.io.
struct TargetClaim {
  std::string dha_name;
  std::string api_group;
  std::string kind;
  std::string target_name;
  bool deleting = false;  // metadata.deletionTimestamp set: it is letting go of the target

  bool same_target(const TargetClaim& other) const {
    return api_group == other.api_group && kind == other.kind && target_name == other.target_name;
  }
};

// The claim of a DHA object, or nullopt when it names no readable target (the schema refuses
// those; nothing to compare).
std::optional<TargetClaim> claim_of(const rapidjson::Value& dha);

// The claims of the items of a DatabaseHorizontalAutoscalerList.
std::vector<TargetClaim> claims_of_list(const rapidjson::Value& list);

// metadata.namespace of an object, "" when absent.
std::string namespace_of(const rapidjson::Value& object);

// Decides a CREATE (old absent) or UPDATE of `new_object` against the other DHAs of its
// namespace (`others` may include the object itself: it is skipped by name). Rules:
//  1. no new object, or no readable target → allow;
//  2. an UPDATE that keeps the target → allow (finalizer removal, spec edits, and DHAs that
//     were already doubled before the webhook existed must still be able to go away);
//  3. another DHA, not being deleted, claims the same target → deny (403). The denial does not
//     name that DHA: the endpoint cannot tell the API server from anyone who posts a review,
//     and its answer must not hand out the names of objects the caller may not read;
//  4. otherwise → allow.
OwnershipVerdict evaluate_target_claim(const rapidjson::Value* old_object, const rapidjson::Value* new_object,
                                       const std::vector<TargetClaim>& others);

// The reconciler's wording for the conflict, on the refused DHA's condition: it names the holder
// (only someone who may read that DHA sees it).
std::string claimed_message(const TargetClaim& wanted, std::string_view holder);
// The webhook's denial: the same, without the holder's name.
std::string claimed_in_namespace_message(const TargetClaim& wanted);

}  // namespace dha::admission
