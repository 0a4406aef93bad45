#pragma once

// The routes every db-autoscaler server process mounts besides the webhook.

#include <dha/server/http.hpp>

#include <functional>
#include <string>

namespace dha::telemetry {
class Registry;
}

namespace dha::server {

// /healthz answers 200 "ok" while the process serves, unless `unhealthy()` names a reason
// (then 500 with it: the liveness probe fails and the pod is restarted); /readyz answers 200
// when `ready()` is true and 503 otherwise. Empty functions mean always healthy, always ready.
void mount_health_probes(Router& router, std::function<bool()> ready = {},
                         std::function<std::string()> unhealthy = {});

// /metrics in Prometheus text format 0.0.4 from `registry`, which must outlive the router.
void mount_metrics(Router& router, const telemetry::Registry& registry, std::string path = "/metrics");

} // namespace dha::server
