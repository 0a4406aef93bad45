#pragma once

// The replicas-ownership decision (BEHAVIOUR §6.2 as amended by Part A 12). Pure: no I/O, no
// clock, no globals; every branch is a table-test case in tests/unit/admission.

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

namespace dha::admission {

// The annotation the apps API projects onto the HelmRelease when the operator patches the
// Application's `autoscaling.cozystack.io/managed-by`.
inline constexpr std::string_view managed_by_annotation = "apps.cozystack.io-autoscaling.cozystack.io/managed-by";

// Default allowed identities (flags --operator-username and --apps-api-username).
inline constexpr std::string_view default_operator_username = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler";
inline constexpr std::string_view default_apps_api_username = "system:serviceaccount:cozy-system:cozystack-api";

struct OwnershipVerdict {
  bool allowed = true;
  int code = 200;      // 200 allowed, 403 denied
  std::string reason;  // "" or "Forbidden"
  std::string message; // empty when allowed
};

// Decides one UPDATE from the raw old and new objects. Rules, in order:
//  1. old or new absent, JSON null, not an object, or (string form) not parseable → allow.
//  2. the object is managed when the marker is non-empty on the old OR the new object; an
//     unmanaged object → allow.
//  3. username exactly equal to an allowed user → allow (groups are not considered).
//  4. spec.values.replicas differs between old and new → deny. "Differs" covers a changed
//     number (compared as float64), a removed key, a non-numeric value replacing a number, and
//     a value appearing where there was none (Part A 12: no bypass by deletion or stringifying).
//  5. the old marker removed or changed in the new object → deny.
//  6. otherwise → allow.
// A denial has code 403, reason Forbidden and the message of BEHAVIOUR §6.2:
//   replicas of this database is managed by DatabaseHorizontalAutoscaler "<marker>"; delete the
//   DHA to regain manual control (attempted change <old> -> <new> by "<username>")
// with numbers printed like Go's %v of a float64, <none> for a missing value, and the JSON of
// a non-numeric one. A marker removal says "(attempted removal of the managed-by marker by ...)".
OwnershipVerdict evaluate_ownership(std::string_view old_json, std::string_view new_json, std::string_view username,
                                    const std::vector<std::string>& allowed_users);

// The same decision on already-parsed objects (nullptr = absent); used by the review handler.
OwnershipVerdict evaluate_ownership(const rapidjson::Value* old_object, const rapidjson::Value* new_object,
                                    std::string_view username, const std::vector<std::string>& allowed_users);

} // namespace dha::admission
