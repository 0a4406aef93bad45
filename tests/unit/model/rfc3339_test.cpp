#include <gtest/gtest.h>

#include "dha/model/rfc3339.hpp"

namespace dha::model {
namespace {

TEST(Rfc3339, FormatsKnownInstants) {
  EXPECT_EQ(format_rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(951782400), "2000-02-29T00:00:00Z");
  EXPECT_EQ(format_rfc3339(1700000000), "2023-11-14T22:13:20Z");
  EXPECT_EQ(format_rfc3339(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(format_rfc3339(253402300799), "9999-12-31T23:59:59Z");
}

TEST(Rfc3339, RoundTripsAcrossYears) {
  for (std::int64_t t = -86400LL * 366 * 3; t < 86400LL * 366 * 80; t += 86400LL * 17 + 3607)
    ASSERT_EQ(parse_rfc3339(format_rfc3339(t)), t) << t;
}

TEST(Rfc3339, ParsesOffsetsAndFractions) {
  EXPECT_EQ(parse_rfc3339("2023-11-14T22:13:20Z"), 1700000000);
  EXPECT_EQ(parse_rfc3339("2023-11-14T22:13:20.987654Z"), 1700000000);
  EXPECT_EQ(parse_rfc3339("2023-11-15T00:13:20+02:00"), 1700000000);
  EXPECT_EQ(parse_rfc3339("2023-11-14T20:13:20-02:00"), 1700000000);
  EXPECT_EQ(parse_rfc3339("2023-11-14t22:13:20z"), 1700000000);
}

TEST(Rfc3339, RejectsMalformed) {
  for (const char* bad :
       {"", "2023-11-14", "2023-11-14T22:13:20", "2023-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2023-11-14T24:00:00Z",
        "2023-11-14T22:13:20+2:00", "2023-11-14T22:13:20.Z", "2023-11-14T22:13:20Zjunk", "20x3-11-14T22:13:20Z"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
}

// Found by tests/fuzz/dha_status: these parsed, then formatted as "-001-12-31T23:00:00Z" and
// "10000-01-01T00:59:59Z", which no longer parse, so a status we wrote could not be read back.
TEST(Rfc3339, RejectsInstantsOutsideYears0To9999) {
  for (const char* bad : {"0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "9999-12-31T23:59:60Z"})
    EXPECT_FALSE(parse_rfc3339(bad)) << bad;
  EXPECT_EQ(parse_rfc3339("0000-01-01T01:00:00+01:00"), -62167219200);
  EXPECT_EQ(parse_rfc3339("9999-12-31T23:59:59Z"), 253402300799);
  EXPECT_EQ(format_rfc3339(-62167219200), "0000-01-01T00:00:00Z");
}

}  // namespace
}  // namespace dha::model
