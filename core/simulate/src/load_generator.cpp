#include "dha/simulate/load_generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace dha::decide {
namespace {

constexpr std::int64_t kRowSeconds = 60;

// splitmix64 and Box-Muller: fully specified, unlike the standard library's distributions, whose
// output differs between implementations.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  double uniform() {  // in (0, 1)
    return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal() {
    const double u = uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
  }

 private:
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t state_;
};

struct Sample {
  double load;
  double lag;
  double writes;
};

double smoothstep(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * (3 - 2 * x);
}

// Hours since the start of the trace.
double hours(std::int64_t t) { return static_cast<double>(t) / 3600.0; }

Sample diurnal(std::int64_t t, Random& rng) {
  const double h = hours(t);
  // Night ~270, just under two read replicas' 300 at target, so noise keeps crossing it; a
  // morning rise from 06:00, a peak near 15:00 (~980), back to night by 23:00.
  const double day = smoothstep((h - 6) / 5) * (1 - smoothstep((h - 17) / 6));
  const double peak = 0.85 + 0.15 * std::sin((h - 9) / 6 * std::numbers::pi);
  const double level = 270 + 710 * day * peak;
  return {std::max(0.0, level * (1 + 0.06 * rng.normal())), std::max(0.0, 0.6 + 0.3 * rng.normal()), 180 + 400 * day};
}

// Eight days of the same daily shape, each day a little busier or quieter than the others: the
// first seven are the history a forecast of the eighth learns from.
Sample diurnal_week(std::int64_t t, Random& rng) {
  const double day_of_trace = std::floor(hours(t) / 24);
  Random day_rng(0x5eed0000 + static_cast<std::uint64_t>(day_of_trace));  // one factor per day
  const double factor = 0.95 + 0.1 * day_rng.uniform();
  const double h = std::fmod(hours(t), 24);
  const double day = smoothstep((h - 6) / 5) * (1 - smoothstep((h - 17) / 6));
  const double peak = 0.85 + 0.15 * std::sin((h - 9) / 6 * std::numbers::pi);
  const double level = 270 + 600 * day * peak * factor;
  return {std::max(0.0, level * (1 + 0.05 * rng.normal())), std::max(0.0, 0.6 + 0.3 * rng.normal()), 180 + 400 * day};
}

// Three weeks of office load: weekdays busy, weekends (days 5 and 6 of each week) quiet, a
// one-off evening flash crowd on day 8, and a holiday on day 17 as quiet as a weekend. The first
// two weeks are a forecast's history (the crowd must not come back in it a week later); the
// third tests it, holiday included.
constexpr int kHolidayDay = 17;
constexpr int kFlashCrowdDay = 8;

Sample weekly_holiday(std::int64_t t, Random& rng) {
  const int day_of_trace = static_cast<int>(t / 86400);
  Random day_rng(0x3eec0000 + static_cast<std::uint64_t>(day_of_trace));  // one factor per day
  const double factor = 0.95 + 0.1 * day_rng.uniform();
  const double h = std::fmod(hours(t), 24);
  const bool quiet = day_of_trace % 7 >= 5 || day_of_trace == kHolidayDay;
  const double day = smoothstep((h - 6) / 5) * (1 - smoothstep((h - 17) / 6));
  const double peak = 0.85 + 0.15 * std::sin((h - 9) / 6 * std::numbers::pi);
  double level = 270 + (quiet ? 220 : 600) * day * peak * factor;
  // The crowd: at 20:00 within two minutes, 40 minutes, then gone within ten; the maximum can
  // serve it, so what it costs is the policy's doing.
  if (day_of_trace == kFlashCrowdDay && h >= 20 && h < 20 + 50.0 / 60)
    level += 450 * smoothstep((h - 20) * 30) * (1 - smoothstep((h - 20 - 40.0 / 60) * 6));
  return {std::max(0.0, level * (1 + 0.05 * rng.normal())), std::max(0.0, 0.6 + 0.3 * rng.normal()), 180 + 400 * day};
}

Sample flash_crowd(std::int64_t t, Random& rng) {
  const double h = hours(t);
  double level = 260;
  // At 2 h the crowd arrives within two minutes, stays 25 minutes above the maximum's capacity,
  // then leaves over an hour.
  if (h >= 2) level += 1000 * smoothstep((h - 2) * 30) * (h < 2.45 ? 1 : std::exp(-(h - 2.45) * 3));
  return {std::max(0.0, level * (1 + 0.04 * rng.normal())), std::max(0.0, 0.5 + 0.2 * rng.normal()), 150};
}

Sample ramp_lag(std::int64_t t, Random& rng) {
  const double h = hours(t);
  const double level = 150 + 800 * std::clamp(h / 7, 0.0, 1.0);
  // A bulk write from 3 h to 4 h 30: lag climbs to ~70 s and drains after it stops.
  double lag = 1.0;
  double writes = 200;
  if (h >= 3 && h < 4.5) {
    writes = 2500;
    lag = 45 + 30 * smoothstep((h - 3) * 4);
  } else if (h >= 4.5 && h < 4.75) {
    lag = 75 * (1 - (h - 4.5) * 4);
  }
  return {std::max(0.0, level * (1 + 0.03 * rng.normal())), std::max(0.0, lag + 0.4 * rng.normal()), writes};
}

Sample noisy_plateau(std::int64_t t, Random& rng) {
  (void)t;
  // 400 is under three read replicas' 450 at target; the noise crosses it every few minutes.
  return {std::max(0.0, 400 + 32 * rng.normal()), std::max(0.0, 0.5 + 0.2 * rng.normal()), 120};
}

struct FamilyInfo {
  const char* name;
  LoadFamily family;
  std::int64_t seconds;
  Sample (*sample)(std::int64_t, Random&);
};

constexpr FamilyInfo kFamilies[] = {
    {"diurnal-day", LoadFamily::Diurnal, 86400, diurnal},
    {"flash-crowd", LoadFamily::FlashCrowd, 6 * 3600, flash_crowd},
    {"ramp-lag", LoadFamily::RampLag, 8 * 3600, ramp_lag},
    {"noisy-plateau", LoadFamily::NoisyPlateau, 6 * 3600, noisy_plateau},
    {"diurnal-week", LoadFamily::DiurnalWeek, 8 * 86400, diurnal_week},
    {"weekly-holiday", LoadFamily::WeeklyHoliday, 21 * 86400, weekly_holiday},
};

const FamilyInfo& info(LoadFamily family) {
  for (const auto& f : kFamilies)
    if (f.family == family) return f;
  return kFamilies[0];
}

}  // namespace

std::optional<LoadFamily> parse_load_family(std::string_view name) {
  for (const auto& f : kFamilies)
    if (name == f.name) return f.family;
  return std::nullopt;
}

std::vector<std::string> load_family_names() {
  std::vector<std::string> out;
  for (const auto& f : kFamilies) out.emplace_back(f.name);
  return out;
}

std::string generate_load_csv(LoadFamily family, std::uint64_t seed) {
  const FamilyInfo& f = info(family);
  Random rng(seed);
  std::string csv = fmt::format("# {} (seed {}): generated by db-autoscaler simulate --generate\n", f.name, seed);
  csv += "time,ReadConnections,lagSeconds,writeRate\n";
  for (std::int64_t t = 0; t <= f.seconds; t += kRowSeconds) {
    const Sample s = f.sample(t, rng);
    csv += fmt::format("{},{:.1f},{:.1f},{:.0f}\n", t, s.load, s.lag, s.writes);
  }
  return csv;
}

}  // namespace dha::decide
