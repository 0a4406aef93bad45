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
  // The state the first decision is given, as the operator builds it for a new DHA (windows
  // counted from its first observation); called with the initial replicas and the first decision
  // time. Unset: an empty state.
  std::function<model::DecisionState(std::int32_t replicas, std::int64_t now)> initial_state;
};

// Longest trace the simulator accepts (it integrates per second).
inline constexpr std::int64_t kMaxSimulatedSeconds = 90LL * 86400;

struct SimulationStep {
  std::int64_t time = 0;
  std::int32_t current_replicas = 0;  // before the decision
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
  std::optional<double> forecast;  // read replicas expected within the horizon (predictive only)
  std::int64_t forecast_horizon = 0;
};

struct SimulationSummary {
  std::int64_t duration_seconds = 0;
  std::int64_t replica_seconds = 0;       // integral of the replicas count (cost)
  std::int64_t seconds_above_target = 0;  // average load per available read replica above target
  // seconds_above_target split by cause, the first that applies (the five add up to it):
  std::int64_t overload_unavoidable = 0;   // even the ceiling (maxReplicas, quota) is not enough
  std::int64_t overload_provisioning = 0;  // a replica we asked for is starting
  std::int64_t overload_reaction = 0;      // the overload began after the last decision instant
  std::int64_t overload_held = 0;          // the last decision was a guardrail's freeze
  std::int64_t overload_other = 0;         // the policy did not ask for enough
  // The clairvoyant bound: the replicas needed at each second, pre-provisioned exactly. During a
  // metric outage the need is unknown: those seconds are left out of the bound, and out of
  // replica_seconds_bound_known, the cost it is compared with.
  std::int64_t bound_replica_seconds = 0;
  std::int64_t bound_unknown_seconds = 0;
  std::int64_t replica_seconds_bound_known = 0;
  // Over the same seconds, the replicas the policy had below the need (replicas asked for,
  // starting ones included, as in the cost): what it saved by leaving load unserved. The bound
  // is a lower bound only for a policy that serves the load, so bound_ratio adds this back.
  std::int64_t shortfall_replica_seconds = 0;
  std::int32_t scale_actions = 0;  // applied Scale and Rollback decisions
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

// The cost against the clairvoyant bound, over the seconds whose need is known: what the policy
// spent plus its shortfall, over the bound. Each second counts max(replicas, need) against need,
// so the ratio is never below 1: a policy cannot look cheaper than the bound by leaving load
// unserved. 1 when the bound is empty.
double bound_ratio(const SimulationSummary& summary);

rapidjson::Value simulation_to_json(const SimulationResult& result, rapidjson::Document::AllocatorType& alloc);

// A self-contained SVG: load and target capacity (first spec metric) over time on top, replicas
// (current and available) below, with axes and a legend.
std::string render_svg(const SimulationResult& result, const model::DhaSpec& spec, const LoadTrace& load,
                       const SimulationParams& params);

}  // namespace dha::decide
