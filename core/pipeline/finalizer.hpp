#pragma once

#include <rapidjson/document.h>

#include "dha/kube/client.hpp"
#include "dha/kube/resource.hpp"
#include "host/self_metrics.hpp"

// Our finalizer on a DHA: it holds the DHA's deletion until the target has been released.
namespace dha::pipeline {

inline constexpr const char* kFinalizer = "autoscaling.cozystack.io/finalizer";

bool has_finalizer(const rapidjson::Value& object);
// Adds it (a no-op when present); returns the DHA as updated. `read` is the DHA as just read:
// it is updated as it is (one PUT, carrying its resourceVersion), and read again only on a
// conflict, instead of a GET before every PUT.
rapidjson::Document add_finalizer(kube::Client& client, op::SelfMetrics& metrics, const kube::ResourceRef& dha,
                                  const rapidjson::Value& read);
// Removes it; a DHA already gone is not an error.
void remove_finalizer(kube::Client& client, op::SelfMetrics& metrics, const kube::ResourceRef& dha);

}  // namespace dha::pipeline
