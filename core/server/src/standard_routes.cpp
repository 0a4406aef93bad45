#include <dha/server/standard_routes.hpp>
#include <dha/telemetry/registry.hpp>

namespace dha::server {

void mount_health_probes(Router& router, std::function<bool()> ready, std::function<std::string()> unhealthy) {
  // Probes and metrics take no body: nothing a client sends them is ever buffered.
  router.handle("/healthz", [unhealthy = std::move(unhealthy)](const Request&) {
    if (unhealthy) {
      if (std::string why = unhealthy(); !why.empty()) return Response::text(500, "unhealthy: " + why + "\n");
    }
    return Response::text(200, "ok");
  }, 0);
  router.handle("/readyz", [ready = std::move(ready)](const Request&) {
    if (!ready || ready()) return Response::text(200, "ok");
    return Response::text(503, "not ready");
  }, 0);
}

void mount_metrics(Router& router, const telemetry::Registry& registry, std::string path) {
  router.handle(std::move(path), [&registry](const Request& request) {
    if (request.method != "GET" && request.method != "HEAD") return Response::text(405, "method not allowed\n");
    Response response;
    response.content_type = std::string(telemetry::Registry::content_type);
    response.body = registry.expose();
    return response;
  }, 0);
}

} // namespace dha::server
