// Serves /validate-helmrelease-replicas and /metrics over TLS until SIGINT/SIGTERM, for
// bench/webhook/run.sh. Prints "listening on <port>" once ready.

#include "dha/admission/replicas_ownership_webhook.hpp"
#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/registry.hpp"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>

int main(int argc, char** argv) {
  CLI::App app{"webhook benchmark server"};
  std::string cert_dir;
  int port = 0;
  unsigned threads = 1;
  app.add_option("--cert-dir", cert_dir, "directory with tls.crt and tls.key")->required();
  app.add_option("--port", port, "listen port on 127.0.0.1 (0 = any free port)");
  app.add_option("--threads", threads, "server threads");
  CLI11_PARSE(app, argc, argv);

  // Block the signals before any thread starts so that only sigwait() sees them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  dha::telemetry::Registry registry;
  dha::server::Router router;
  dha::admission::mount_replicas_ownership_webhook(router, {}, &registry);
  dha::server::mount_metrics(router, registry);
  dha::server::ServerOptions options;
  options.name = "webhook-bench";
  options.host = "127.0.0.1";
  options.port = static_cast<std::uint16_t>(port);
  options.threads = threads;
  options.tls = dha::server::TlsOptions{cert_dir};
  dha::server::Server server(options, std::move(router));
  try {
    server.start();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::printf("listening on %u\n", server.port());
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  server.stop(std::chrono::seconds(2));
  return 0;
}
