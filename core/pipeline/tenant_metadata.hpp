#pragma once

#include <rapidjson/document.h>

// What a reconcile keeps of the DHA it reads. The tenant controls the DHA's metadata: a 250 KB
// annotation or 4500 finalizers ride along on every GET. Held whole by each of the workers for
// a whole reconcile, that was a fifth of the operator's RSS at 1000 such DHAs (bench/abuse).
namespace dha::pipeline {

// A copy of `dha` without metadata.annotations, labels, managedFields and ownerReferences, and
// with only our finalizer of metadata.finalizers (the array stays, empty, when it had others).
// Nothing the reconcile reads. Not for writing back whole: that would drop the tenant's fields.
rapidjson::Document without_tenant_metadata(const rapidjson::Value& dha);

}  // namespace dha::pipeline
