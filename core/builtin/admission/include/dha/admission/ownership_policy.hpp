#pragma once

// The replicas-ownership decision. Pure: no I/O, no clock, no globals; every branch is a
// table-test case in tests/unit/admission.

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

namespace dha::admission {

// The annotation the apps API projects onto the HelmRelease when the operator patches the
// Application's `autoscaling.cozystack.io/managed-by`.
inline constexpr std::string_view managed_by_annotation = "apps.cozystack.io-autoscaling.cozystack.io/managed-by";

// The identity the webhook lets write managed releases (flag --apps-api-username): the apps
// API, through which the operator's own replica changes arrive. The operator itself never
// writes HelmReleases, so its ServiceAccount is not allowed.
inline constexpr std::string_view default_apps_api_username = "system:serviceaccount:cozy-system:cozystack-api";

// Kubernetes' own controllers that delete objects when their owner or namespace goes: they may
// delete a managed release as well.
inline constexpr std::string_view kubernetes_deleters[] = {
    "system:serviceaccount:kube-system:generic-garbage-collector",
    "system:serviceaccount:kube-system:namespace-controller",
    "system:kube-controller-manager",
};

struct OwnershipVerdict {
  bool allowed = true;
  int code = 200;       // 200 allowed, 403 denied
  std::string reason;   // "" or "Forbidden"
  std::string message;  // empty when allowed
};

// Decides one CREATE, UPDATE or DELETE from the raw old and new objects (a create has no old
// object, a delete no new one). Rules, in order:
//  1. neither object present as a JSON object, or (string form) one not parseable → allow.
//  2. the object is managed when the marker is non-empty on the old OR the new object; an
//     unmanaged object → allow.
//  3. username exactly equal to an allowed user → allow (groups are not considered).
//  4. a create (of a release carrying the marker) → deny.
//  5. a delete → deny, unless by one of kubernetes_deleters.
//  6. spec.values.replicas differs between old and new → deny. "Differs" covers a changed
//     number (compared as float64), a removed key, a non-numeric value replacing a number, and
//     a value appearing where there was none (no bypass by deletion or stringifying).
//  7. spec.postRenderers, spec.valuesFrom, spec.chart or spec.chartRef differs (the same
//     comparison) → deny: each can set the instance count without touching values.replicas.
//  8. the old marker removed or changed in the new object → deny.
//  9. otherwise → allow.
// A denial has code 403, reason Forbidden and the message
//   replicas of this database is managed by DatabaseHorizontalAutoscaler "<marker>"; delete the
//   DHA to regain manual control (attempted change <old> -> <new> by "<username>")
// with numbers printed like Go's %v of a float64, <none> for a missing value, and the JSON of
// a non-numeric one. Rule 7 says "(attempted change of spec.postRenderers by ...)" (or the field
// changed). A marker removal says "(attempted removal of the managed-by marker by ...)", a create "(attempted creation
// of a managed release by ...)", a delete "(attempted deletion by ...)".
OwnershipVerdict evaluate_ownership(std::string_view old_json, std::string_view new_json, std::string_view username,
                                    const std::vector<std::string>& allowed_users);

// The same decision on already-parsed objects (nullptr = absent); used by the review handler.
OwnershipVerdict evaluate_ownership(const rapidjson::Value* old_object, const rapidjson::Value* new_object,
                                    std::string_view username, const std::vector<std::string>& allowed_users);

}  // namespace dha::admission
