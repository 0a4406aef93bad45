#pragma once

// The routes every db-autoscaler server process mounts besides the webhook.

#include "dha/server/http.hpp"
#include "dha/server/server.hpp"

#include <functional>
#include <string>

namespace dha::telemetry {
class Registry;
}

namespace dha::server {

// /healthz answers 200 "ok" while the process serves, unless `unhealthy()` names a reason
// (then 500 with it: the liveness probe fails and the pod is restarted); /readyz answers 200
// when `ready()` is true and 503 otherwise. Empty functions mean always healthy, always ready.
void mount_health_probes(Router& router, std::function<bool()> ready = {}, std::function<std::string()> unhealthy = {});

// Tight limits for a server that only answers the probes (the kubelet opens a connection per
// probe and sends a small GET at once): few slots, 8 per peer, accepted once it has sent
// something (deferred accept), 500 ms to a first byte, 1 s to a whole request, no bodies. A
// flood of its port is drained at accept speed like any other.
void apply_probe_limits(ServerOptions& options);

// /metrics in Prometheus text format 0.0.4 from `registry`, which must outlive the router.
void mount_metrics(Router& router, const telemetry::Registry& registry, std::string path = "/metrics");

}  // namespace dha::server
