#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/registry.hpp"

namespace dha::server {

void mount_health_probes(Router& router, std::function<bool()> ready, std::function<std::string()> unhealthy) {
  // Probes and metrics take no body: nothing a client sends them is ever buffered.
  router.handle(
      "/healthz",
      [unhealthy = std::move(unhealthy)](const Request&) {
        if (unhealthy) {
          if (std::string why = unhealthy(); !why.empty()) return Response::text(500, "unhealthy: " + why + "\n");
        }
        return Response::text(200, "ok");
      },
      0);
  router.handle(
      "/readyz",
      [ready = std::move(ready)](const Request&) {
        if (!ready || ready()) return Response::text(200, "ok");
        return Response::text(503, "not ready");
      },
      0);
}

void apply_probe_limits(ServerOptions& options) {
  options.max_connections = 64;
  options.reserved_connections = 0;
  options.max_connections_per_peer = 8;
  options.first_byte_timeout = 500ms;
  options.defer_accept = 1s;  // a kubelet sends its GET with its connect: only floods are silent
  options.handshake_timeout = 1s;
  options.header_timeout = 1s;
  options.read_timeout = 1s;
  options.write_timeout = 1s;
  options.idle_timeout = 5s;
  options.max_header_bytes = 8 * 1024;
  options.max_body_bytes = 0;
  options.max_body_bytes_in_flight = 64 * 1024;
  options.max_body_bytes_in_flight_per_peer = 16 * 1024;
  options.threads = 1;
}

void mount_metrics(Router& router, const telemetry::Registry& registry, std::string path) {
  router.handle(
      std::move(path),
      [&registry](const Request& request) {
        if (request.method != "GET" && request.method != "HEAD") return Response::text(405, "method not allowed\n");
        Response response;
        response.content_type = std::string(telemetry::Registry::content_type);
        response.body = registry.expose();
        return response;
      },
      0);
}

}  // namespace dha::server
