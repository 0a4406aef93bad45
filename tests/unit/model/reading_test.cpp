#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "dha/model/reading.hpp"

namespace dha::model {
namespace {

struct ReadingCase {
  const char* name;
  double value;
  ReadingFault fault;
  const char* described;
};

class ReadingRule : public ::testing::TestWithParam<ReadingCase> {};

TEST_P(ReadingRule, SaysWhatIsAReading) {
  const auto& c = GetParam();
  EXPECT_EQ(reading_fault(c.value), c.fault);
  EXPECT_EQ(valid_reading(c.value).has_value(), c.fault == ReadingFault::kNone);
  EXPECT_EQ(describe_fault(c.fault, c.value), c.described);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ReadingRule,
    ::testing::Values(
        ReadingCase{"zero", 0, ReadingFault::kNone, ""}, ReadingCase{"fraction", 0.25, ReadingFault::kNone, ""},
        ReadingCase{"largest_plausible", kLargestPlausibleReading, ReadingFault::kNone, ""},
        ReadingCase{"negative", -300, ReadingFault::kNegative, "-300, a negative value"},
        ReadingCase{"tiny_negative", -0.5, ReadingFault::kNegative, "-0.5, a negative value"},
        ReadingCase{"implausible", 1e13, ReadingFault::kImplausible, "1e+13, beyond any plausible reading"},
        ReadingCase{"nan", std::numeric_limits<double>::quiet_NaN(), ReadingFault::kNotFinite, "a non-finite value"},
        ReadingCase{"infinite", std::numeric_limits<double>::infinity(), ReadingFault::kNotFinite,
                    "a non-finite value"},
        ReadingCase{"minus_infinite", -std::numeric_limits<double>::infinity(), ReadingFault::kNotFinite,
                    "a non-finite value"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dha::model
