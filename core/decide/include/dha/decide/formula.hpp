#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"

// The proportional formula, saturating, with the tolerance band (docs/behaviour.md#formula).
namespace dha::decide {

// Read-serving replicas: max(current - primaries, 1).
std::int32_t read_replicas(std::int32_t current, std::int32_t primary_count);

// One metric's desired TOTAL count. `average` is per read replica, `target` in the same unit and
// > 0. desiredRead = ceil(rcur * average / target) (that operation order, in double), at least 1,
// saturated; plus the primaries. With tolerance > 0, |average/target - 1| <= tolerance yields
// `current` (no change), as the HPA does; tolerance 0 is the reference formula exactly.
std::int32_t desired_for_metric(std::int32_t current, std::int32_t primary_count, double average, double target,
                                double tolerance);

struct MetricEvaluation {
  model::MetricType type = model::MetricType::ReadConnections;
  double average = 0;  // per read-serving replica, in the query unit
  double target = 0;   // in the query unit (millicores for CPU)
  std::int32_t desired = 0;
};

struct MetricsResult {
  std::string invalid_target_metric;  // first metric whose target is <= 0 (a freeze, not an error)
  bool available = false;             // every spec metric has a finite reading
  std::int32_t raw_desired = 0;       // max over metrics; 0 when unavailable or invalid
  std::vector<MetricEvaluation> metrics;
  std::string summary;  // "ReadConnections 210/150" per metric, for messages
};

// Evaluates every spec metric against the observation. A reading that is missing, null, NaN or
// +-Inf makes the whole set unavailable (fail-safe), never a scale-down.
MetricsResult evaluate_metrics(const model::DhaSpec& spec, const model::Observation& obs);

}  // namespace dha::decide
