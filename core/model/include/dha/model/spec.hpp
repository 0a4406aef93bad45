#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/model/quantity.hpp"

// The DHA spec with the controller defaults applied.
namespace dha::model {

enum class MetricType { ReadConnections, ReadCPUUtilization };

std::string_view to_string(MetricType type);
std::optional<MetricType> parse_metric_type(std::string_view text);

struct MetricSpec {
  MetricType type = MetricType::ReadConnections;
  Quantity target;  // spec.metrics[].target.averageValue, per read-serving replica
  // spec.metrics[].target.averageUtilization (ReadCPUUtilization only): percent of the read
  // replicas' CPU request, as the HorizontalPodAutoscaler reads it. Set instead of `target`.
  std::optional<std::int32_t> average_utilization;

  // The target in the unit the observed value comes in: percent of the CPU request for a
  // utilization target, millicores for a CPU quantity, a plain number for connections. A value
  // <= 0 is a decision (InvalidMetricTarget), not bad input.
  double target_in_query_unit() const;
  bool is_utilization() const { return average_utilization.has_value(); }
  // "150", "250m" or "70%": the target as a tenant wrote it.
  std::string target_text() const;
};

struct ScalingRules {
  std::int32_t stabilization_window_seconds = 0;
  std::int32_t step = 1;
};

// One primary and one read replica: fewer leaves no replica to serve reads or to fail over to.
inline constexpr std::int32_t kMinimumReplicas = 2;
inline constexpr std::int32_t kDefaultScaleUpWindowSeconds = 300;
inline constexpr std::int32_t kDefaultScaleDownWindowSeconds = 1800;
inline constexpr std::int32_t kDefaultConvergenceDeadlineSeconds = 900;
inline constexpr std::int32_t kMaxConvergenceDeadlineSeconds = 86400;
inline constexpr std::int32_t kDefaultMaxReplicationLagSeconds = 30;
inline constexpr const char* kDefaultApiGroup = "apps.cozystack.io";

// How the raw recommendation becomes a proposal before the guardrails see it.
// Windowed: a rise or a fall must hold for its stabilization window, one step at a time.
// Adaptive: an overload is met at once with a step sized, with headroom, for the load expected
// when the new replicas are ready; a fall needs that headroom at the smaller size for the whole
// down-window (hysteresis), and then takes the whole surplus in one step.
enum class ScalingPolicy { Windowed, Adaptive };

std::string_view to_string(ScalingPolicy policy);

// The Adaptive policy's windows and steps when the spec does not set them: no up-window (the
// confirmation is the policy's own), an up step as large as the need, a 600 s down-window and
// a down step as large as the surplus.
inline constexpr std::int32_t kAdaptiveScaleUpWindowSeconds = 0;
inline constexpr std::int32_t kAdaptiveScaleDownWindowSeconds = 600;

// Measured on the simulator's load families (docs/decide.md): waiting to confirm small overloads
// saved no scale actions once sizes keep headroom, and cost overloaded minutes; so by default
// every overload is acted on, and the headroom is what damps noise.
struct AdaptiveRules {
  double up_margin = 0;           // a smaller overload must be seen on two cycles in a row
  double down_hysteresis = 0.12;  // sizes chosen keep load this far below target
  bool predictive = false;        // also provision ahead of the observation's forecast
  bool forecast_only = false;     // with predictive: report what the forecast asks for, act on load only
};

struct Behavior {
  ScalingPolicy policy = ScalingPolicy::Windowed;
  AdaptiveRules adaptive;
  ScalingRules scale_up{kDefaultScaleUpWindowSeconds, 1};
  ScalingRules scale_down{kDefaultScaleDownWindowSeconds, 1};
  std::int32_t convergence_deadline_seconds = kDefaultConvergenceDeadlineSeconds;
  double tolerance = 0;  // 0 keeps the reference behaviour exactly
  // false (the default): a DHA with no history starts its windows at its first observation.
  bool immediate_first_decision = false;
};

struct Constraints {
  bool respect_quorum = true;
  std::int32_t max_replication_lag_seconds = kDefaultMaxReplicationLagSeconds;
};

struct TargetRef {
  std::string api_group = kDefaultApiGroup;
  std::string kind;
  std::string name;
};

struct DhaSpec {
  std::optional<TargetRef> target_ref;  // required by the CRD; the decide command needs none
  std::int32_t min_replicas = 2;
  std::int32_t max_replicas = 2;
  std::vector<MetricSpec> metrics;
  Behavior behavior;
  Constraints constraints;
  bool dry_run = false;

  // Recommendation history is kept for the longer of the two stabilization windows.
  std::int64_t longest_window_seconds() const;
};

struct SpecParseOptions {
  bool require_target_ref = true;
};

// Parses a DHA `spec` object, validating it as the CRD schema and CEL rule would and applying
// the controller defaults. Throws InputError naming the field, with paths starting at `path`.
DhaSpec parse_spec(const rapidjson::Value& spec, const SpecParseOptions& options = {},
                   const std::string& path = "spec");

// The spec with defaults applied, in CRD field names (for plugin gate requests and tools).
rapidjson::Value spec_to_json(const DhaSpec& spec, rapidjson::Document::AllocatorType& alloc);

}  // namespace dha::model
