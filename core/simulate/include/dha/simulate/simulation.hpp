#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dha/decide/decide.hpp"
#include "dha/decide/load_trace.hpp"
#include "dha/model/spec.hpp"

// Replays a load trace through decide() over simulated time: the same code the operator runs,
// with a simple target that takes `provision_seconds` to make a new replica available.
namespace dha::decide {

struct SimulationParams {
  std::int32_t initial_replicas = 2;
  std::int64_t provision_seconds = 120;  // a new replica becomes available this long after the patch
  std::int64_t interval_seconds = 60;    // reconcile period
  std::int32_t primary_count = 1;
  std::int32_t quorum_floor = 1;
  std::optional<std::int32_t> quota_max_replicas;
  // Decisions start here (trace time); earlier rows are only history for a forecast.
  std::optional<std::int64_t> start_at;
  // The decision state of the first decision, from the replicas and the time then; empty: an
  // empty state. `simulate` gives the operator's rule for a DHA's first observation, so a
  // simulated DHA starts as a new one does.
  std::function<model::DecisionState(std::int32_t current_replicas, std::int64_t now)> first_state;
};

// Longest trace the simulator accepts (it integrates per second).
inline constexpr std::int64_t kMaxSimulatedSeconds = 90LL * 86400;

struct SimulationStep {
  std::int64_t time = 0;
  std::int32_t current_replicas = 0;    // before the decision
  std::int32_t available_replicas = 0;
  std::int32_t desired_replicas = 0;
  std::int32_t raw_desired_replicas = 0;
  model::DecisionKind kind = model::DecisionKind::NoChange;
  bool applied = false;
  std::string reason;
  std::string message;
  std::vector<std::pair<std::string, std::optional<double>>> load;  // total per spec metric
  std::optional<double> lag_seconds;
  std::optional<double> write_rate;
};

struct SimulationSummary {
  std::int64_t duration_seconds = 0;
  std::int64_t replica_seconds = 0;       // integral of the replicas count (cost)
  std::int64_t seconds_above_target = 0;  // average load per available read replica above target
  // seconds_above_target split by cause, the first that applies (the five add up to it):
  std::int64_t overload_unavoidable = 0;   // even the ceiling (maxReplicas, quota) is not enough
  std::int64_t overload_provisioning = 0;  // a replica we asked for is starting
  std::int64_t overload_reaction = 0;      // the overload is younger than one reconcile interval
  std::int64_t overload_held = 0;          // the last decision was a guardrail's freeze
  std::int64_t overload_other = 0;         // the policy did not ask for enough
  // The clairvoyant bound: the replicas needed at each second, pre-provisioned exactly.
  std::int64_t bound_replica_seconds = 0;
  std::int32_t scale_actions = 0;         // applied Scale and Rollback decisions
  std::int32_t rollbacks = 0;
  std::int32_t min_replicas = 0;
  std::int32_t max_replicas = 0;
  std::map<std::string, std::int32_t> freezes_by_reason;  // cycles frozen (or rolled back), by reason
};

struct SimulationResult {
  std::vector<SimulationStep> steps;
  SimulationSummary summary;
};

// The replicas the load at `time` needs (primaries included), clamped to [floor, ceiling];
// nullopt when a metric has no reading then. `unclamped` receives the need before clamping.
std::optional<std::int32_t> needed_replicas(const model::DhaSpec& spec, const LoadTrace& load, double time,
                                            std::int32_t primary_count, std::int32_t floor, std::int32_t ceiling,
                                            std::int32_t* unclamped = nullptr);

// Throws model::InputError when the trace lacks a column for a spec metric, the params are out of
// range, or the trace is longer than kMaxSimulatedSeconds.
SimulationResult simulate(const model::DhaSpec& spec, const LoadTrace& load, const SimulationParams& params);

rapidjson::Value simulation_to_json(const SimulationResult& result, rapidjson::Document::AllocatorType& alloc);

// A self-contained SVG: load and target capacity (first spec metric) over time on top, replicas
// (current and available) below, with axes and a legend.
std::string render_svg(const SimulationResult& result, const model::DhaSpec& spec, const LoadTrace& load,
                       const SimulationParams& params);

}  // namespace dha::decide
