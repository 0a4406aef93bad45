// dha-world-sim: the world simulator as a process (see world_simulator.hpp). Runs until SIGTERM
// or SIGINT, or for --duration seconds.

#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "dha/testing/world/world_simulator.hpp"

namespace {

std::atomic<bool> g_stop{false};
void request_stop(int) { g_stop.store(true); }

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000.0));
}

}  // namespace

int main(int argc, char** argv) {
  namespace w = dha::testing::world;
  CLI::App app{
      "World simulator for db-autoscaler: plays an engine's operator (replicas become available after a "
      "delay, the object's status and its WorkloadMonitor follow) and its exporters (series pushed into "
      "VictoriaMetrics from a load curve). The engine is Postgres/CloudNativePG unless --engine describes "
      "another"};
  std::string kubeconfig, load_file, engine_file;
  bool print_postgres = false;
  w::WorldOptions options;
  double provision_seconds = 10, scrape_seconds = 1, poll_seconds = 0.25, duration_seconds = 0;
  app.add_option("--kubeconfig", kubeconfig, "kubeconfig of the API server (default: $KUBECONFIG)");
  app.add_option("--vm-url", options.vm_url, "VictoriaMetrics base URL, e.g. http://127.0.0.1:8428 (required)");
  app.add_option("--load", load_file,
                 "load curve CSV (required): time,ReadConnections[,ReadCPUUtilization,lagSeconds,writeRate]")
      ->check(CLI::ExistingFile);
  app.add_option("--engine", engine_file,
                 "engine description (YAML or JSON: kind, group, version, plural, replicas, pods, status, health, "
                 "series); default: the built-in Postgres one")
      ->check(CLI::ExistingFile);
  app.add_flag("--print-postgres-engine", print_postgres,
               "print the built-in Postgres engine description (a starting point for your own) and exit");
  app.add_option("--namespace", options.namespace_name, "only simulate applications in this namespace");
  app.add_option("--provision-seconds", provision_seconds, "how long a new replica takes to become available")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--scrape-interval", scrape_seconds, "seconds between two pushes of the exporter series")
      ->check(CLI::Range(0.05, 3600.0));
  app.add_option("--poll-interval", poll_seconds, "seconds between two looks at the applications")
      ->check(CLI::Range(0.05, 60.0));
  app.add_option("--time-scale", options.time_scale, "play the load curve this many times faster than real time")
      ->check(CLI::Range(0.001, 10000.0));
  app.add_option("--status-file", options.status_file, "rewrite this file with one status line per application");
  app.add_option("--duration", duration_seconds, "stop after this many seconds (0 = until SIGTERM/SIGINT)")
      ->check(CLI::Range(0.0, 1e7));
  CLI11_PARSE(app, argc, argv);
  if (print_postgres) {
    std::cout << w::EngineDescription::postgres_yaml();
    return 0;
  }

  try {
    if (options.vm_url.empty()) throw std::invalid_argument("--vm-url is required");
    if (load_file.empty()) throw std::invalid_argument("--load is required");
    if (!engine_file.empty()) options.engine = w::EngineDescription::read_file(engine_file);
    if (kubeconfig.empty()) {
      const char* env = std::getenv("KUBECONFIG");
      if (env == nullptr || *env == '\0') throw std::invalid_argument("no --kubeconfig and $KUBECONFIG is not set");
      kubeconfig = env;
    }
    options.provision = millis(provision_seconds);
    options.scrape_interval = millis(scrape_seconds);
    options.poll_interval = millis(poll_seconds);
    auto endpoint = w::KubeEndpoint::from_kubeconfig(kubeconfig);
    auto curve = w::LoadCurve::read_file(load_file);
    std::signal(SIGTERM, request_stop);
    std::signal(SIGINT, request_stop);
    w::WorldSimulator world(std::move(endpoint), std::move(curve), options, std::cout);
    std::cout << "dha-world-sim: " << options.engine.kind << " (" << options.engine.group << "/"
              << options.engine.version << "), API server " << w::KubeEndpoint::from_kubeconfig(kubeconfig).server
              << ", VictoriaMetrics " << options.vm_url << ", load " << load_file << " x" << options.time_scale
              << ", replicas available after " << provision_seconds << " s" << std::endl;
    std::optional<std::chrono::milliseconds> duration;
    if (duration_seconds > 0) duration = millis(duration_seconds);
    world.run(g_stop, duration);
  } catch (const std::exception& e) {
    std::cerr << "dha-world-sim: " << e.what() << std::endl;
    return 1;
  }
  return 0;
}
