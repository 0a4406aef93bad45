#pragma once

#include <cstdint>
#include <optional>

#include "dha/decide/load_trace.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"

// The forecast the simulator gives a predictive policy: the trace's own earlier days are its
// history, as the metric's past weeks would be in a cluster.
namespace dha::decide {

inline constexpr std::int64_t kSecondsPerDay = 86400;
inline constexpr int kForecastDays = 7;

// The largest demand (read replicas at target) in [now, now + horizon] on each of the previous
// kForecastDays days of the trace, then their mean plus two standard deviations: the spread
// between days is the error margin. nullopt before the trace has a whole day of history.
std::optional<model::Forecast> seasonal_forecast(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now,
                                                 std::int64_t horizon);

// How far ahead a forecast looks: far enough that a replica asked for now is ready in time, and
// that a size about to be needed again within the down-window is not given up in between.
std::int64_t forecast_horizon(const model::DhaSpec& spec, std::int64_t ready_seconds, std::int64_t interval_seconds);

}  // namespace dha::decide
