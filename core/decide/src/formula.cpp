#include "dha/decide/formula.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dha/decide/saturating.hpp"

namespace dha::decide {

std::int32_t read_replicas(std::int32_t current, std::int32_t primary_count) {
  const std::int64_t readers = static_cast<std::int64_t>(current) - primary_count;
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(readers, 1, INT32_MAX));
}

std::int32_t desired_for_metric(std::int32_t current, std::int32_t primary_count, double average, double target,
                                double tolerance) {
  if (!(target > 0)) return current;  // defence in depth: the FailSafe gate freezes first
  if (tolerance > 0 && std::fabs(average / target - 1.0) <= tolerance) return current;
  const double rcur = read_replicas(current, primary_count);
  // Divide, multiply, divide: the reference order, so results match it bit for bit.
  const double ratio = rcur * average / target;
  std::int32_t read = std::isnan(ratio) ? 1 : saturate_to_int32(std::ceil(ratio));
  read = std::max(read, 1);
  return saturating_add(read, primary_count);
}

MetricsResult evaluate_metrics(const model::DhaSpec& spec, const model::Observation& obs) {
  MetricsResult result;
  for (const auto& m : spec.metrics) {
    if (!(m.target_in_query_unit() > 0)) {
      result.invalid_target_metric = std::string(model::to_string(m.type));
      return result;
    }
  }
  const std::int32_t current = obs.current_replicas;
  const double rcur = read_replicas(current, obs.primary_count);
  std::int32_t raw = 0;
  for (const auto& m : spec.metrics) {
    const auto* reading = obs.find_metric(std::string(model::to_string(m.type)));
    if (reading == nullptr || !reading->value || !std::isfinite(*reading->value)) {
      result.metrics.clear();
      result.summary.clear();
      return result;
    }
    MetricEvaluation e;
    e.type = m.type;
    e.target = m.target_in_query_unit();
    e.average = *reading->value / rcur;
    e.desired = desired_for_metric(current, obs.primary_count, e.average, e.target, spec.behavior.tolerance);
    raw = std::max(raw, e.desired);
    if (!result.summary.empty()) result.summary += ", ";
    result.summary += fmt::format("{} {:.6g}/{:.6g}", model::to_string(m.type), e.average, e.target);
    result.metrics.push_back(e);
  }
  result.available = !result.metrics.empty();
  result.raw_desired = raw == 0 ? current : raw;
  if (result.available) result.summary += " per read replica";
  return result;
}

}  // namespace dha::decide
