#include "dha/admission/go_float_format.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace dha::admission {
namespace {

struct Case {
  double value;
  const char* go;  // what fmt.Sprintf("%v", float64(value)) prints
};

TEST(FormatGoFloat, MatchesGoPercentV) {
  const Case cases[] = {
      {0, "0"},
      {-0.0, "-0"},
      {3, "3"},
      {3.5, "3.5"},
      {-2, "-2"},
      {10, "10"},
      {100000, "100000"},
      {999999, "999999"},
      {999999.5, "999999.5"},
      {1e6, "1e+06"},
      {1234567, "1.234567e+06"},
      {250000, "250000"},
      {1e21, "1e+21"},
      {1.5e300, "1.5e+300"},
      {0.0001, "0.0001"},
      {0.00012, "0.00012"},
      {0.00001, "1e-05"},
      {0.1 + 0.2, "0.30000000000000004"},
      {5e-324, "5e-324"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
  };
  for (const auto& c : cases) EXPECT_EQ(format_go_float(c.value), c.go) << c.go;
}

}  // namespace
}  // namespace dha::admission
