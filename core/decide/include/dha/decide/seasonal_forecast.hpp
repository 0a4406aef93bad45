#pragma once

#include <cstdint>
#include <optional>

#include "dha/decide/load_trace.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"

// The forecast a predictive policy is given: the load's own history, as the simulator's trace or
// the metric's past weeks in a cluster. Seasonal by weekday and time of day once two weeks are
// known, by time of day before that; robust to one-off days; never reads a row at or after `now`.
namespace dha::decide {

inline constexpr std::int64_t kSecondsPerDay = 86400;
inline constexpr std::int64_t kSecondsPerWeek = 7 * kSecondsPerDay;
inline constexpr int kForecastDays = 7;   // reference days with a daily period
inline constexpr int kForecastWeeks = 4;  // reference weeks with a weekly period, at most
// How much of today the forecast compares with the same hours of each reference day: a quiet
// holiday or a busier week scales the references to today's level. Two hours: by 09:00 they are
// the morning's own, where three hours were still half night and hid a quiet day until late morning.
inline constexpr std::int64_t kLevelSeconds = 2 * 3600;
inline constexpr double kMinLevelRatio = 0.25;
inline constexpr double kMaxLevelRatio = 1.5;
// Two weekly references further apart than this (relative to the smaller) disagree: one of them
// is a one-off, and the last seven days say which.
inline constexpr double kWeeksDisagree = 0.3;
// The longest horizon a forecast looks ahead: a window of a day or more must not turn the
// forecast of the next hours into one of tomorrow.
inline constexpr std::int64_t kMaxForecastHorizonSeconds = 6 * 3600;

// What a forecast is made of, for the trace and the tests.
struct ForecastDetail {
  model::Forecast forecast;  // read_replicas = estimate + margin
  double estimate = 0;       // the median of the references' peaks, scaled to today's level
  double margin = 0;         // this slot's error: the larger of the two below
  double spread = 0;         // the references' spread around the estimate
  double recent_error = 0;   // how far the same forecast missed the peaks of the last hours
  double level = 1;          // today's level against the references' (median of the ratios)
  std::int64_t period_seconds = kSecondsPerDay;
  int references = 0;
};

// For each reference (the same time a period ago, two periods ago, ...): the largest demand (read
// replicas at target) in [then, then + horizon], times today's level against that day's (the
// median demand of the kLevelSeconds before now and before then, at the instants known in both,
// within [kMinLevelRatio, kMaxLevelRatio]). The estimate is the references' median; the margin
// the larger of their spread (median absolute deviation x 1.4826; with two references, half their
// difference) and the forecast's recent error (for each horizon-long window that ended within the
// kLevelSeconds before now, the peak that came against the one the same references gave for it:
// their median absolute difference x 1.4826); the forecast their sum. The period is a week once
// two weekly references hold readings, else a day; two weeks that disagree by more than
// kWeeksDisagree keep only the one closer to the last seven days' median. nullopt before there is
// a whole period of history.
std::optional<ForecastDetail> seasonal_forecast_detail(const model::DhaSpec& spec, const LoadTrace& load,
                                                       std::int64_t now, std::int64_t horizon);

std::optional<model::Forecast> seasonal_forecast(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now,
                                                 std::int64_t horizon);

// How far ahead a forecast looks: far enough that a replica asked for now is ready in time, and
// that a size about to be needed again within the down-window is not given up in between; at
// most kMaxForecastHorizonSeconds.
std::int64_t forecast_horizon(const model::DhaSpec& spec, std::int64_t ready_seconds, std::int64_t interval_seconds);

}  // namespace dha::decide
