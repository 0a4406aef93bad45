#pragma once

#include <optional>
#include <string>

// What counts as a reading of a load signal (connections, CPU, lag, write rate), the one rule for
// an instant read, a point of a range history and a cell of a load trace. Such a signal is never
// negative, always finite, and no database has 10^12 of it: a sample outside that is a broken
// exporter or query. Taken as real it would push a decision (a negative load toward a scale-down),
// so it is no reading at all — a hole where it stands, never a number, and never a reason to
// throw away the readings around it.
namespace dha::model {

inline constexpr double kLargestPlausibleReading = 1e12;

enum class ReadingFault { kNone, kNotFinite, kNegative, kImplausible };

ReadingFault reading_fault(double value);

// `value` when it is a reading, nullopt when it is a hole.
inline std::optional<double> valid_reading(double value) {
  return reading_fault(value) == ReadingFault::kNone ? std::optional<double>(value) : std::nullopt;
}

// "-3, a negative value", "1e+13, beyond any plausible reading", "a non-finite value"; "" for kNone.
std::string describe_fault(ReadingFault fault, double value);

}  // namespace dha::model
