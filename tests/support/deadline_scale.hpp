// How much longer than on an idle machine a test waits for the state it asserts. One factor for
// every wait: a sanitized build runs several times slower, and a loaded machine (a full parallel
// suite, a stress run under CPU hogs) stretches every reconcile, so a deadline that is generous
// on an idle laptop is a coin toss there. Only deadlines scale: a "nothing happens for N s"
// period is a claim about the code and stays as written.
//
//   DHA_TEST_DEADLINE_SCALE=4   every deadline 4x (scripts/test --asan sets 3 unless it is set)
//   unset                       3x in a sanitized build, 1x otherwise
#pragma once

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "sanitized_build.hpp"

namespace dha::testsupport {

// Parses a DHA_TEST_DEADLINE_SCALE value; throws on anything but a number in [1, 100].
inline double parse_deadline_scale(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(v >= 1 && v <= 100))
    throw std::invalid_argument("DHA_TEST_DEADLINE_SCALE must be a number from 1 to 100, not \"" + text + "\"");
  return v;
}

inline double deadline_scale() {
  static const double scale = [] {
    if (const char* s = std::getenv("DHA_TEST_DEADLINE_SCALE"); s != nullptr && *s != '\0')
      return parse_deadline_scale(s);
    return kSanitizedBuild ? 3.0 : 1.0;
  }();
  return scale;
}

// `d` stretched by the machine's deadline scale.
inline std::chrono::milliseconds scaled_deadline(std::chrono::milliseconds d) {
  return std::chrono::milliseconds(static_cast<long long>(static_cast<double>(d.count()) * deadline_scale()));
}

}  // namespace dha::testsupport
