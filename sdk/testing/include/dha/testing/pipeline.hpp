#pragma once

// Test kit: the operator's real decision pipeline in-process, one reconcile at a time, on a
// manual clock — so "with this load, my adapter makes the operator scale 3 -> 4" is a
// deterministic GoogleTest that takes no wall time for stabilization windows.
//
// It is the code `db-autoscaler run` runs, not a copy: the plugin set (your .so loaded from a
// path, the built-in actuators and gates, the metric source), the observer (API server reads,
// scoped PromQL through the metric source), decide + the gate chain, the actuator's patch, the
// status writer and the events. Only the process wiring is left out (informers, work queue,
// leader election, servers): the test says when a reconcile happens, and what time it is.
//
//   dha::testing::Pipeline pipeline({.kubeconfig = kubeconfig_path,
//                                    .plugin_dirs = {ACMEDB_PLUGIN_DIR},
//                                    .plugins = {"acmedb", "metrics-vm"},
//                                    .plugin_config_json = R"({"metrics-vm": {"url": "..."}})"});
//   pipeline.reconcile("tenant-a", "orders");          // observe -> decide -> gate -> act
//   pipeline.clock().advance(std::chrono::seconds(60));
//
// The manual clock, clock(), is the pipeline's only notion of time. It drives: the `now` of
// decide and of every gate (plugin gates receive it as "now"), stabilization windows, backoff
// and in-flight deadlines, every timestamp written to the DHA status (recommendations,
// lastDecision, conditions), Event timestamps and their aggregation, and the range a predictive
// DHA reads its history over (range queries end at clock().now()). It does not drive the
// current readings: the ABI's instant query carries no evaluation time, so VictoriaMetrics
// evaluates it at its own wall clock. Import current samples with unix_millis_now(): what keeps
// them readable is being recent in wall time, however far the manual clock has been advanced.
// Timeouts and the reconcile duration metric are wall time too.
//
// Link dha::testing::kit. The "metrics-vm" plugin ships with the kit (lib/dha-sdk/plugins),
// which is searched after `plugin_dirs`.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/testing/fake_host.hpp"
#include "dha/testing/kit_export.hpp"

namespace dha::testing {

struct PipelineOptions {
  std::string kubeconfig;                // the API server, e.g. ApiServer::write_kubeconfig()
  std::vector<std::string> plugin_dirs;  // searched in order for <name>.so
  std::vector<std::string> plugins;      // as --plugins: {"acmedb", "metrics-vm"}
  std::string plugin_config_json;        // as the --plugin-config file: {"<plugin id>": {...}}
  std::int64_t start_unix_seconds = 0;   // the manual clock's start; 0 = the current second
  std::chrono::seconds sync_period{60};  // what a healthy reconcile asks to be requeued after
  std::string log_level = "warn";        // the operator's log level (spdlog names), to stderr
};

// What one reconcile asked the controller to do next (kube::ReconcileResult, flattened).
struct ReconcileOutcome {
  enum class Kind { kDone, kRequeueAfter, kError };
  Kind kind = Kind::kDone;
  std::chrono::milliseconds requeue_after{0};
  std::string error;  // kError only
  bool terminal = false;
};

// A Kubernetes object or collection (name empty). `group` empty = the core API.
struct ObjectRef {
  std::string group;
  std::string version;
  std::string plural;
  std::string namespace_name;
  std::string name;
};

// A number the decision was made on: status.currentMetrics as a value, with the DHA's target.
struct MetricReading {
  std::string type;              // "ReadConnections"
  double value = 0;              // the per-replica average the operator computed
  std::optional<double> target;  // the spec's target averageValue (or averageUtilization); nullopt if neither
};

// One Event the operator wrote about a DHA during a reconcile of this Pipeline, as values a test
// can compare across SDK releases. `message` is the prose a person reads: its wording
// is operator output and may change in any release; every other field is stable across 1.x.
struct EventRecord {
  std::string dha;         // the DHA it is about (involvedObject.name)
  std::string reason;      // "Scaled", "Rollback", "DryRunScale", "PatchFailed", ...
  std::string type;        // "Normal" or "Warning"
  std::string message;     // prose: assert on the fields below instead
  std::int64_t count = 1;  // how many times the Event was recorded (aggregated repeats)
  // The decision of the reconcile that wrote it, from the DHA's status right after it:
  std::optional<std::int64_t> from;    // the count observed (status.currentReplicas)
  std::optional<std::int64_t> to;      // the count decided (status.lastDecision.desiredReplicas)
  std::string decision;                // status.lastDecision.kind: "Scale", "NoChange", "Freeze", "Rollback"
  std::string decision_reason;         // status.lastDecision.reason
  std::vector<MetricReading> metrics;  // the cause's numbers
};

// A DHA status condition as values; `message` is prose, as for EventRecord.
struct ConditionRecord {
  std::string type;    // "AbleToScale", "ScalingActive", "ScalingLimited", ...
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::int64_t observed_generation = 0;
};

class DHA_TESTING_API Pipeline {
 public:
  // Loads the plugins and connects; throws std::runtime_error naming what could not start (a
  // missing .so, a refused configuration, an unreadable kubeconfig).
  explicit Pipeline(PipelineOptions options);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  // One reconcile of DHA <ns>/<name> at clock().now().
  ReconcileOutcome reconcile(const std::string& ns, const std::string& dha_name);
  ManualClock& clock();
  // On: as `db-autoscaler run` does, a healthy reconcile asks to be requeued at its namespace's
  // next phase instant (every DHA of a namespace comes due at the same offset into the sync
  // period, at most one period away). Off (the default): a flat sync_period. Since SDK 1.2; a
  // function rather than an option, so tests built against an older kit run with this one.
  void requeue_at_namespace_phase(bool on);

  // The cluster as the operator's identity sees it, JSON text in and out (throws on API errors).
  std::string create(const ObjectRef& collection, std::string_view object_json);
  std::string get(const ObjectRef& object);
  std::string merge_patch(const ObjectRef& object, std::string_view patch_json);
  std::string patch_status(const ObjectRef& object, std::string_view patch_json);
  // An integer at a dotted path ("spec.replicas", "status.desiredReplicas"); nullopt if absent.
  std::optional<std::int64_t> read_int(const ObjectRef& object, std::string_view dotted_path);
  // The DHA's condition `type` field `field` ("reason", "status", "message"); "" if absent.
  std::string condition(const std::string& ns, const std::string& dha_name, const std::string& type,
                        const std::string& field = "reason");
  // Messages of the Events in `ns` with this reason (e.g. "Scaled", "DryRunScale").
  std::vector<std::string> events(const std::string& ns, const std::string& reason);

  // Added after SDK 1.2.0 (additive, as every kit change in 1.x): the Events written by this
  // Pipeline's reconciles of DHAs in `ns`, oldest first, with the decision behind each (reason ""
  // = all). An aggregated repeat is a record of its own.
  std::vector<EventRecord> event_records(const std::string& ns, const std::string& reason = "");
  // Added after SDK 1.2.0: every condition of the DHA's status as it is now.
  std::vector<ConditionRecord> conditions(const std::string& ns, const std::string& dha_name);

 private:
  void record_new_events(const std::string& ns, const std::string& dha_name,
                         const std::map<std::string, std::int64_t>& before);
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// Where the kit's own plugins (metrics-vm) are: <libdir>/dha-sdk/plugins next to the installed
// libdha-testkit.so, or the build tree's plugin folder when used inside db-autoscaler's build.
DHA_TESTING_API std::string kit_plugin_dir();

}  // namespace dha::testing
