#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <vector>

#include "dha/admission/one_dha_per_target.hpp"
#include "dha/kube/informer.hpp"
#include "pipeline/target_ref_limits.hpp"

// What the operator's DHA cache keeps of a DHA. Any tenant who may create DHAs controls their
// metadata: a 250 KB annotation, thousands of finalizers or owner references on each of a few
// hundred DHAs made the cache, which every tenant shares, outgrow the operator's memory limit.
// The cache keeps only what is read from it: the identity (name, namespace, uid,
// resourceVersion), generation and deletionTimestamp (what queues a reconcile), our own
// finalizer, and spec.targetRef (the target webhook's claims). A reconcile GETs the DHA it works
// on, so nothing else is lost. A targetRef with a field above its ceiling (a CRD without the
// schema's limits) is dropped from the entry, so the entry claims no target; the reconcile
// refuses that DHA with a Warning.
namespace dha::op {

// Replaces `dha` with the fields above; anything else (labels, annotations, managedFields,
// ownerReferences, other finalizers, the rest of the spec, the status) is gone.
void keep_what_the_operator_reads(rapidjson::Document& dha);

// The target claims of the DHAs of `ns`, read from the cache: a review costs no API request,
// whoever sends it and however often. A DHA created a moment before the cache shows it is
// caught by the reconciler's own check. Throws while the cache has not synced (the review then
// errors instead of allowing a claim it could not compare).
std::vector<admission::TargetClaim> claims_in_cache(const kube::Informer& dhas, const std::string& ns);

}  // namespace dha::op
