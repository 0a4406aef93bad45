#pragma once

// The routes every db-autoscaler server process mounts besides the webhook.

#include <dha/server/http.hpp>

#include <functional>

namespace dha::telemetry {
class Registry;
}

namespace dha::server {

// /healthz always answers 200 "ok" while the process serves; /readyz answers 200 when
// `ready()` is true and 503 otherwise (an empty function means always ready).
void mount_health_probes(Router& router, std::function<bool()> ready = {});

// /metrics in Prometheus text format 0.0.4 from `registry`, which must outlive the router.
void mount_metrics(Router& router, const telemetry::Registry& registry, std::string path = "/metrics");

} // namespace dha::server
