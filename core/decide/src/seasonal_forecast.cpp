#include "dha/decide/seasonal_forecast.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

namespace dha::decide {
namespace {

constexpr std::int64_t kSampleSeconds = 60;

// The demand at `time` as it was known at `now`.
std::optional<double> demand_at(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t time,
                                std::int64_t now) {
  double demand = 0;
  for (const auto& m : spec.metrics) {
    const auto total = load.known_at(model::to_string(m.type), static_cast<double>(time), static_cast<double>(now));
    if (!total) return std::nullopt;
    demand = std::max(demand, *total / m.target_in_query_unit());
  }
  return demand;
}

std::vector<double> samples(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t from, std::int64_t to,
                            std::int64_t now) {
  std::vector<double> out;
  for (std::int64_t s = from;; s += kSampleSeconds) {
    const std::int64_t at = std::min(s, to);
    if (auto d = demand_at(spec, load, at, now)) out.push_back(*d);
    if (at == to) return out;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<double> median_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return median(v);
}

// The spread of the references around their median: what this slot's forecast gets wrong.
double spread(const std::vector<double>& v, double centre) {
  if (v.size() < 2) return 0;
  if (v.size() == 2) return std::fabs(v[0] - v[1]) / 2;
  std::vector<double> deviations;
  for (double x : v) deviations.push_back(std::fabs(x - centre));
  return 1.4826 * median(deviations);
}

struct References {
  std::vector<double> peaks;          // scaled to today's level
  std::vector<double> levels;         // the scale of each
  std::vector<std::int64_t> offsets;  // how far back each is (now - then)
};

// Today's level against the reference's at `then`: the medians of the kLevelSeconds before each,
// read at the same instants and only where both are known (today's last one may not be yet), so
// that the two compare like for like. 1 when nothing compares.
double level_ratio(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now, std::int64_t then) {
  std::vector<double> today, before;
  for (std::int64_t s = now - kLevelSeconds;; s += kSampleSeconds) {
    const std::int64_t at = std::min(s, now - 1);
    const auto d = demand_at(spec, load, at, now);
    const auto r = demand_at(spec, load, at - (now - then), now);
    if (d && r) {
      today.push_back(*d);
      before.push_back(*r);
    }
    if (at == now - 1) break;
  }
  const auto t = median_of(today), b = median_of(before);
  if (!t || !b || !(*b > 0)) return 1;
  return std::clamp(*t / *b, kMinLevelRatio, kMaxLevelRatio);
}

References references(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now, std::int64_t horizon,
                      std::int64_t period, int count) {
  References r;
  for (int k = 1; k <= count; ++k) {
    const std::int64_t then = now - k * period;
    if (then < load.start()) break;  // the history does not reach back that far
    const auto window = samples(spec, load, then, then + horizon, now);
    if (window.empty()) continue;
    const double ratio = level_ratio(spec, load, now, then);
    r.peaks.push_back(*std::max_element(window.begin(), window.end()) * ratio);
    r.levels.push_back(ratio);
    r.offsets.push_back(now - then);
  }
  return r;
}

// Two weeks that disagree cannot outvote each other: the one-off is the one the last seven days
// do not back. (A weekday/weekend difference shows in both weeks alike, so it is kept.)
void drop_one_off_week(References& weekly, const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now,
                       std::int64_t horizon) {
  if (weekly.peaks.size() != 2) return;
  const double a = weekly.peaks[0], b = weekly.peaks[1];
  if (std::fabs(a - b) <= kWeeksDisagree * std::min(a, b)) return;
  const References daily = references(spec, load, now, horizon, kSecondsPerDay, kForecastDays);
  if (daily.peaks.empty()) return;
  const double usual = median(daily.peaks);
  const std::size_t keep = std::fabs(a - usual) <= std::fabs(b - usual) ? 0 : 1;
  weekly.peaks = {weekly.peaks[keep]};
  weekly.levels = {weekly.levels[keep]};
  weekly.offsets = {weekly.offsets[keep]};
}

// The largest known value of each run of `width` consecutive samples (nullopt where none is).
std::vector<std::optional<double>> window_peaks(const std::vector<std::optional<double>>& v, std::size_t width) {
  std::vector<std::optional<double>> out;
  std::deque<std::size_t> q;  // indices of known values, in decreasing order of value
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i]) {
      while (!q.empty() && *v[q.back()] <= *v[i]) q.pop_back();
      q.push_back(i);
    }
    if (i + 1 < width) continue;
    while (!q.empty() && q.front() + width <= i) q.pop_front();
    out.push_back(q.empty() ? std::nullopt : v[q.front()]);
  }
  return out;
}

// How far the forecast missed today: for each window of the horizon's length that ended within
// the kLevelSeconds before now (at one-minute samples), the peak that came against the one the
// same references, at the same levels, gave for it, read at the instants known today (the last
// ones may not be yet); 1.4826 x the median absolute miss, or nullopt when no window has both.
std::optional<double> recent_error(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now,
                                   std::int64_t horizon, const References& refs) {
  horizon = std::max<std::int64_t>(horizon, 0);
  const std::size_t width = static_cast<std::size_t>(horizon / kSampleSeconds) + 1;
  const std::size_t count = static_cast<std::size_t>((kLevelSeconds + horizon) / kSampleSeconds);
  const std::int64_t first = now - static_cast<std::int64_t>(count) * kSampleSeconds;
  std::vector<std::optional<double>> today(count);
  std::vector<std::vector<std::optional<double>>> before(refs.offsets.size(), today);
  for (std::size_t i = 0; i < count; ++i) {
    const std::int64_t at = first + static_cast<std::int64_t>(i) * kSampleSeconds;
    today[i] = demand_at(spec, load, at, now);
    if (!today[i]) continue;
    for (std::size_t k = 0; k < refs.offsets.size(); ++k)
      before[k][i] = demand_at(spec, load, at - refs.offsets[k], now);
  }
  const auto came = window_peaks(today, width);
  std::vector<std::vector<std::optional<double>>> given;
  for (const auto& b : before) given.push_back(window_peaks(b, width));
  std::vector<double> misses;
  for (std::size_t w = 0; w < came.size(); ++w) {
    std::vector<double> peaks;
    for (std::size_t k = 0; k < given.size(); ++k)
      if (given[k][w]) peaks.push_back(*given[k][w] * refs.levels[k]);
    if (came[w] && !peaks.empty()) misses.push_back(std::fabs(*came[w] - median(peaks)));
  }
  if (misses.empty()) return std::nullopt;
  return 1.4826 * median(misses);
}

}  // namespace

std::optional<ForecastDetail> seasonal_forecast_detail(const model::DhaSpec& spec, const LoadTrace& load,
                                                       std::int64_t now, std::int64_t horizon) {
  ForecastDetail detail;
  // By week once two of them hold readings (a history fetched for two weeks may hold only days).
  References refs;
  if (now - 2 * kSecondsPerWeek >= load.start())
    refs = references(spec, load, now, horizon, kSecondsPerWeek, kForecastWeeks);
  if (refs.peaks.size() >= 2) {
    detail.period_seconds = kSecondsPerWeek;
    drop_one_off_week(refs, spec, load, now, horizon);
  } else {
    detail.period_seconds = kSecondsPerDay;
    refs = references(spec, load, now, horizon, kSecondsPerDay, kForecastDays);
  }
  const auto& peaks = refs.peaks;
  const auto& levels = refs.levels;
  if (peaks.empty()) return std::nullopt;
  detail.references = static_cast<int>(peaks.size());
  detail.estimate = median(peaks);
  detail.spread = spread(peaks, detail.estimate);
  detail.recent_error = recent_error(spec, load, now, horizon, refs).value_or(0);
  detail.margin = std::max(detail.spread, detail.recent_error);
  detail.level = median(levels);
  detail.forecast = model::Forecast(detail.estimate + detail.margin, horizon, detail.estimate);
  return detail;
}

std::optional<model::Forecast> seasonal_forecast(const model::DhaSpec& spec, const LoadTrace& load, std::int64_t now,
                                                 std::int64_t horizon) {
  auto d = seasonal_forecast_detail(spec, load, now, horizon);
  if (!d) return std::nullopt;
  return d->forecast;
}

std::int64_t forecast_horizon(const model::DhaSpec& spec, std::int64_t ready_seconds, std::int64_t interval_seconds) {
  const std::int64_t h = ready_seconds + interval_seconds + spec.behavior.scale_down.stabilization_window_seconds;
  return std::clamp<std::int64_t>(h, 0, kMaxForecastHorizonSeconds);
}

}  // namespace dha::decide
