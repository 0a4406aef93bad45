// The deadline scale a test run is given: a number from 1 to 100, anything else refused loudly
// (a typo must not quietly turn every deadline into the idle-machine one, or into zero).
#include "deadline_scale.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dha::testsupport {
namespace {

TEST(DeadlineScale, AcceptsNumbersFromOneToAHundred) {
  const std::vector<std::pair<std::string, double>> table{{"1", 1}, {"3", 3}, {"2.5", 2.5}, {"100", 100}};
  for (const auto& [text, want] : table) EXPECT_DOUBLE_EQ(parse_deadline_scale(text), want) << text;
}

TEST(DeadlineScale, RefusesWhatIsNotAScale) {
  for (const std::string text : {"", "0", "0.5", "-2", "101", "3x", "x3", "nan", "inf"})
    EXPECT_THROW(parse_deadline_scale(text), std::invalid_argument) << '"' << text << '"';
}

TEST(DeadlineScale, ScalesADeadline) {
  const double s = deadline_scale();
  EXPECT_GE(s, 1.0);
  EXPECT_EQ(scaled_deadline(std::chrono::milliseconds(1000)).count(), static_cast<long long>(1000 * s));
}

}  // namespace
}  // namespace dha::testsupport
