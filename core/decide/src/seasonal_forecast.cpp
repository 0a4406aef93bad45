#include "dha/decide/seasonal_forecast.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace dha::decide {
namespace {

constexpr std::int64_t kSampleSeconds = 60;

std::optional<double> demand_at(const model::DhaSpec& spec, const LoadTrace& load, double time) {
  double demand = 0;
  for (const auto& m : spec.metrics) {
    const auto total = load.at(model::to_string(m.type), time);
    if (!total) return std::nullopt;
    demand = std::max(demand, *total / m.target_in_query_unit());
  }
  return demand;
}

std::optional<double> window_max(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t from,
                                 std::int64_t horizon) {
  std::optional<double> best;
  for (std::int64_t s = from;; s += kSampleSeconds) {
    const std::int64_t at = std::min(s, from + horizon);
    if (auto d = demand_at(spec, load, static_cast<double>(at))) best = std::max(best.value_or(0), *d);
    if (at == from + horizon) return best;
  }
}

}  // namespace

std::optional<model::Forecast> seasonal_forecast(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now,
                                                 std::int64_t horizon) {
  std::vector<double> days;
  for (int d = 1; d <= kForecastDays; ++d) {
    const std::int64_t then = now - d * kSecondsPerDay;
    if (then < load.start()) break;  // the trace does not reach back that far
    if (auto m = window_max(spec, load, then, horizon)) days.push_back(*m);
  }
  if (days.empty()) return std::nullopt;
  double mean = 0;
  for (double v : days) mean += v;
  mean /= static_cast<double>(days.size());
  double var = 0;
  for (double v : days) var += (v - mean) * (v - mean);
  const double sd = days.size() > 1 ? std::sqrt(var / static_cast<double>(days.size() - 1)) : 0;
  return model::Forecast{mean + 2 * sd, horizon};
}

std::int64_t forecast_horizon(const model::DhaSpec& spec, std::int64_t ready_seconds, std::int64_t interval_seconds) {
  return ready_seconds + interval_seconds + spec.behavior.scale_down.stabilization_window_seconds;
}

}  // namespace dha::decide
