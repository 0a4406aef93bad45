#pragma once

#include <rapidjson/document.h>

#include "dha/kube/client.hpp"
#include "dha/kube/resource.hpp"
#include "host/self_metrics.hpp"

// Our finalizer on a DHA: it holds the DHA's deletion until the target has been released.
namespace dha::pipeline {

inline constexpr const char* kFinalizer = "autoscaling.cozystack.io/finalizer";

bool has_finalizer(const rapidjson::Value& object);
// Adds it (a no-op when present); returns the DHA as updated. The DHA is read again for the
// PUT: what a reconcile holds lacks the tenant's metadata (see tenant_metadata.hpp), which a
// PUT of it would erase. Once in a DHA's life, before its first write to the target.
rapidjson::Document add_finalizer(kube::Client& client, op::SelfMetrics& metrics, const kube::ResourceRef& dha);
// Removes it; a DHA already gone is not an error.
void remove_finalizer(kube::Client& client, op::SelfMetrics& metrics, const kube::ResourceRef& dha);

}  // namespace dha::pipeline
