#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dha::model {

// A Kubernetes resource quantity ("150", "250m", "1.5k", "2Gi", "1e3").
struct Quantity {
  std::string text;        // as written
  double value = 0;        // approximate float value (Quantity.AsApproximateFloat64)
  std::int64_t milli = 0;  // value * 1000, fractions of a milli rounded away from zero like
                           // Quantity.MilliValue, saturated to the int64 range
};

// Parses the Kubernetes quantity grammar: an optional sign, a decimal number, and at most one
// suffix (binary Ki..Ei, decimal n u m k M G T P E, or an exponent e<int>/E<int>). On failure
// returns nullopt and, if `error` is given, a short reason.
std::optional<Quantity> parse_quantity(std::string_view text, std::string* error = nullptr);

// Canonical renderings used in status.currentMetrics: 250 milli -> "250m", 2000 milli -> "2";
// a plain integer -> "76".
std::string format_milli_quantity(std::int64_t milli);
std::string format_plain_quantity(std::int64_t value);

}  // namespace dha::model
