#pragma once

#include <string>

namespace dha::admission {

// Formats a float64 exactly as Go's fmt `%v` does (strconv 'g' with the shortest precision):
// the shortest digits that round-trip, in exponent form when the decimal exponent is < -4 or
// >= 6, otherwise in plain form. Examples: 3, 3.5, 100000, 1e+06, 1.234567e+06, 0.0001, 1e-05,
// 1e+21, -0, +Inf, NaN. The deny message of the reference prints replica counts this way.
std::string format_go_float(double value);

}  // namespace dha::admission
