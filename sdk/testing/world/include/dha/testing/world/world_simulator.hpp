#pragma once

// The world around db-autoscaler, simulated: it plays the engine operator and the exporters so the
// real operator can be run end to end without a cluster or a database.
//
// Engine operator: every poll it lists the objects of the engine's kind (WorldOptions::engine; by
// default `apps.cozystack.io/v1alpha1 Postgres`, see engine_description.hpp). When the replica
// count at the described path grows, new instances become available after `provision`; when it
// shrinks, the newest instances go away at once. It keeps the described health object in step —
// a `cozystack.io/v1alpha1 WorkloadMonitor` (created if missing; status.availableReplicas,
// observedReplicas and operational = available >= spec.minReplicas, as Cozystack's controller
// computes it) — and the object's own status: the available count at the described path and the
// condition Ready (True when every instance is available), so `kubectl get` shows them.
//
// Exporters: every `scrape_interval` it pushes the described series of every application (see
// engine_exporter.hpp; for Postgres the CNPG-shaped ones of cnpg_exporter.hpp) into VictoriaMetrics through
// /api/v1/import/prometheus, with the load of the curve at that moment spread over the available read replicas. The
// curve's clock starts when the first application is seen and runs `time_scale` times faster than real time;
// provisioning and scraping stay in real time (they are what the operator's windows are measured against).
//
// Errors of the API server or VictoriaMetrics are logged and retried on the next step: the
// simulator outlives restarts of either.

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "dha/testing/world/engine_description.hpp"
#include "dha/testing/world/kube_rest.hpp"
#include "dha/testing/world/load_curve.hpp"
#include "dha/testing/world/simulated_database.hpp"

namespace dha::testing::world {

struct WorldOptions {
  std::string vm_url;          // e.g. http://127.0.0.1:8428 (where /api/v1/import/... lives)
  std::string namespace_name;  // "" = every namespace
  std::chrono::milliseconds provision{std::chrono::seconds(10)};
  std::chrono::milliseconds scrape_interval{std::chrono::seconds(1)};
  std::chrono::milliseconds poll_interval{std::chrono::milliseconds(250)};
  double time_scale = 1;
  // Rewritten (atomically) after every step: one line per application, for scripts to show.
  std::string status_file;
  // The engine whose operator and exporters are played.
  EngineDescription engine = EngineDescription::postgres();
};

// What the simulator currently believes about one application.
struct AppSnapshot {
  std::string namespace_name;
  std::string name;
  int replicas = 0;
  int available = 0;
};

class WorldSimulator {
 public:
  // Throws std::invalid_argument for bad options (time_scale <= 0, empty vm_url, ...).
  WorldSimulator(KubeEndpoint endpoint, LoadCurve curve, WorldOptions options, std::ostream& log);
  ~WorldSimulator();

  // One step at `now`: observe applications, update WorkloadMonitors, push series if a scrape is
  // due. Never throws for API server or VictoriaMetrics failures (they are logged).
  void step(Clock::time_point now);
  // Steps every poll_interval until `stop` is set or `max_duration` has passed.
  void run(const std::atomic<bool>& stop, std::optional<std::chrono::milliseconds> max_duration = std::nullopt);

  std::vector<AppSnapshot> apps(Clock::time_point now) const;
  // Seconds on the load curve's clock at `now` (0 until the first application appears).
  double curve_seconds(Clock::time_point now) const;
  LoadPoint load(Clock::time_point now) const { return curve_.at(curve_seconds(now)); }

 private:
  struct App;
  void observe_applications(Clock::time_point now);
  void sync_workload_monitor(App& app, Clock::time_point now);
  void sync_object_status(App& app, Clock::time_point now);
  void scrape(Clock::time_point now);
  void write_status_file(Clock::time_point now) const;

  KubeRest kube_;
  LoadCurve curve_;
  WorldOptions options_;
  std::ostream& log_;
  std::map<std::string, std::unique_ptr<App>> apps_;  // by "namespace/name"
  std::optional<Clock::time_point> curve_start_;
  std::optional<Clock::time_point> last_scrape_;
};

}  // namespace dha::testing::world
