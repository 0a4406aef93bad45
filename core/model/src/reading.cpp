#include "dha/model/reading.hpp"

#include <cmath>
#include <cstdio>

namespace dha::model {

ReadingFault reading_fault(double value) {
  if (!std::isfinite(value)) return ReadingFault::kNotFinite;
  if (value < 0) return ReadingFault::kNegative;
  if (value > kLargestPlausibleReading) return ReadingFault::kImplausible;
  return ReadingFault::kNone;
}

std::string describe_fault(ReadingFault fault, double value) {
  char number[32];
  std::snprintf(number, sizeof number, "%g", value);
  switch (fault) {
    case ReadingFault::kNone:
      return "";
    case ReadingFault::kNotFinite:
      return "a non-finite value";
    case ReadingFault::kNegative:
      return std::string(number) + ", a negative value";
    case ReadingFault::kImplausible:
      return std::string(number) + ", beyond any plausible reading";
  }
  return "";
}

}  // namespace dha::model
