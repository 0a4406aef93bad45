#include "dha/status_writer/metric_readings.hpp"

#include <cmath>
#include <optional>
#include <string>

#include "dha/decide/formula.hpp"
#include "dha/model/quantity.hpp"

namespace dha::status {
namespace {

std::optional<double> average_of(const model::MetricSpec& m, const decide::Decision& d, const model::Observation* obs) {
  for (const auto& e : d.metrics)
    if (e.type == m.type) return e.average;
  if (obs == nullptr) return std::nullopt;
  const model::MetricReading* reading = obs->find_metric(std::string(model::to_string(m.type)));
  if (reading == nullptr || !reading->value || !std::isfinite(*reading->value)) return std::nullopt;
  return *reading->value / decide::read_replicas(obs->current_replicas, obs->primary_count);
}

std::string formatted(const model::MetricSpec& m, double average) {
  // CPU as truncated millicores, the rest rounded half-up: how the reference operator renders
  // them, so dashboards built on it keep reading the same numbers.
  if (m.type == model::MetricType::ReadCPUUtilization && !m.is_utilization())
    return model::format_milli_quantity(static_cast<std::int64_t>(std::trunc(average)));
  return model::format_plain_quantity(static_cast<std::int64_t>(std::floor(average + 0.5)));
}

}  // namespace

std::vector<model::CurrentMetric> metric_readings(const model::DhaSpec& spec, const decide::Decision& d,
                                                  const model::Observation* obs) {
  std::vector<model::CurrentMetric> out;
  for (const auto& m : spec.metrics)
    if (const auto average = average_of(m, d, obs))
      out.push_back({std::string(model::to_string(m.type)), formatted(m, *average)});
  return out;
}

}  // namespace dha::status
