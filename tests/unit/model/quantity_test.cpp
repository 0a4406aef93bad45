#include <gtest/gtest.h>

#include <limits>

#include "dha/model/quantity.hpp"

namespace dha::model {
namespace {

struct GoodRow {
  const char* text;
  double value;
  std::int64_t milli;
};

class QuantityParses : public ::testing::TestWithParam<GoodRow> {};

TEST_P(QuantityParses, ValueAndMilli) {
  const auto q = parse_quantity(GetParam().text);
  ASSERT_TRUE(q) << GetParam().text;
  EXPECT_DOUBLE_EQ(q->value, GetParam().value);
  EXPECT_EQ(q->milli, GetParam().milli);
  EXPECT_EQ(q->text, GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuantityParses,
    ::testing::Values(GoodRow{"150", 150, 150000}, GoodRow{"0", 0, 0}, GoodRow{"250m", 0.25, 250},
                      GoodRow{"1", 1, 1000}, GoodRow{"1.5", 1.5, 1500}, GoodRow{".5", 0.5, 500}, GoodRow{"5.", 5, 5000},
                      GoodRow{"+7", 7, 7000}, GoodRow{"-250m", -0.25, -250}, GoodRow{"1.5k", 1500, 1500000},
                      GoodRow{"2M", 2e6, 2000000000}, GoodRow{"3G", 3e9, 3000000000000}, GoodRow{"1Ki", 1024, 1024000},
                      GoodRow{"2Mi", 2097152, 2097152000}, GoodRow{"1Gi", 1073741824.0, 1073741824000},
                      GoodRow{"100n", 1e-7, 1},     // a fraction of a milli rounds up
                      GoodRow{"1500u", 0.0015, 2},  // 1.5 milli rounds up
                      GoodRow{"1e3", 1000, 1000000}, GoodRow{"1E3", 1000, 1000000}, GoodRow{"2e-3", 0.002, 2},
                      GoodRow{"5e+2", 500, 500000}, GoodRow{"1E", 1e18, std::numeric_limits<std::int64_t>::max()}),
    [](const auto& info) {
      std::string n;
      for (char c : std::string(info.param.text)) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      return "q_" + n + "_" + std::to_string(info.index);
    });

class QuantityRejects : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantityRejects, WithAReason) {
  std::string why;
  EXPECT_FALSE(parse_quantity(GetParam(), &why)) << GetParam();
  EXPECT_FALSE(why.empty());
}

INSTANTIATE_TEST_SUITE_P(Table, QuantityRejects,
                         ::testing::Values("", "abc", "m", "Ki", "1.2.3", "1 ", " 1", "1x", "1e", "1e1.5", "--1",
                                           "1KiB", "1k2", ".", "+", "1e99999", "1Mi5"));

TEST(QuantityFormat, MilliAndPlain) {
  EXPECT_EQ(format_milli_quantity(250), "250m");
  EXPECT_EQ(format_milli_quantity(2000), "2");
  EXPECT_EQ(format_milli_quantity(0), "0");
  EXPECT_EQ(format_milli_quantity(1500), "1500m");
  EXPECT_EQ(format_plain_quantity(76), "76");
}

}  // namespace
}  // namespace dha::model
