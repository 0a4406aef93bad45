#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Seeded synthetic load traces for the simulator, in the CSV that LoadTrace::parse_csv reads.
// The same family and seed give the same trace wherever it runs (no library distributions).
namespace dha::decide {

enum class LoadFamily {
  Diurnal,        // one day: a quiet night, a morning rise, an afternoon peak, an evening fall
  FlashCrowd,     // a steady load, then a jump beyond what the maximum can serve, and a decay
  RampLag,        // a steady climb with a bulk write that pushes replication lag over the brake
  NoisyPlateau,   // a constant level with heavy minute-to-minute noise around a replica boundary
  DiurnalWeek,    // eight days of one daily pattern: history for a forecast, then a day to test it
  WeeklyHoliday,  // three weeks of weekdays and weekends; in the third a holiday and a one-off crowd
};

std::optional<LoadFamily> parse_load_family(std::string_view name);
std::vector<std::string> load_family_names();

// A trace of ReadConnections (total), lagSeconds and writeRate, one row every 60 s.
std::string generate_load_csv(LoadFamily family, std::uint64_t seed);

}  // namespace dha::decide
