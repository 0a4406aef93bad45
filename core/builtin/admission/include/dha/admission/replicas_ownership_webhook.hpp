#pragma once

// Mounting the replicas-ownership webhook on a server router. The operator calls this with
// values from its flags; the built-in plugin descriptor (wired by the host) will call it too.

#include "dha/admission/ownership_policy.hpp"
#include "dha/server/http.hpp"

#include <string>

namespace dha::telemetry {
class Registry;
}

namespace dha::admission {

struct ReplicasOwnershipWebhookOptions {
  std::string path = "/validate-helmrelease-replicas";
  std::string apps_api_username = std::string(default_apps_api_username);  // --apps-api-username
};

// Registers the AdmissionReview handler at options.path. With a registry, it also records
// (controller-runtime's names, so existing dashboards work):
//   controller_runtime_webhook_requests_total{webhook,code}      HTTP responses by status code
//   controller_runtime_webhook_latency_seconds{webhook}          handling time histogram
//   controller_runtime_webhook_requests_in_flight{webhook}       gauge
//   db_autoscaler_webhook_admissions_total{webhook,result}       allowed|denied|errored|bad_request
// The registry must outlive the router.
void mount_replicas_ownership_webhook(server::Router& router, const ReplicasOwnershipWebhookOptions& options,
                                      telemetry::Registry* metrics = nullptr);

}  // namespace dha::admission
