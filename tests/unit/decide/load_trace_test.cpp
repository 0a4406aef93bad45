// Load traces: what the simulator is fed must mean what the file says, or be refused clearly.

#include <gtest/gtest.h>

#include <cmath>

#include "dha/decide/load_trace.hpp"
#include "dha/model/input_error.hpp"

namespace dha::testing {
namespace {

using decide::LoadTrace;

TEST(LoadTraceCells, NanCellIsNoReadingAndLeavesThePreviousRowIntact) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,100\n60,NaN\n120,300\n");
  ASSERT_TRUE(t.at("ReadConnections", 0));
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 0), 100);
  ASSERT_TRUE(t.at("ReadConnections", 30));  // the segment 0..60 starts with a valid reading
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 30), 100);
  EXPECT_FALSE(t.at("ReadConnections", 60));  // NaN is an outage of its own segment
  EXPECT_FALSE(t.at("ReadConnections", 90));
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 120), 300);
}

TEST(LoadTraceCells, InfiniteCellIsNoReading) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,inf\n60,100\n");
  EXPECT_FALSE(t.at("ReadConnections", 30));
}

TEST(LoadTraceCells, HoursWithoutRowsAreAnOutageNotAStraightLine) {
  // Rows every 60 s, then nothing for three hours.
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,100\n60,100\n120,100\n11000,700\n11060,700\n");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 90), 100);
  EXPECT_FALSE(t.at("ReadConnections", 121));
  EXPECT_FALSE(t.at("ReadConnections", 5000));
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 11000), 700);
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 11030), 700);
}

TEST(LoadTraceCells, AnIrregularButDenseTraceIsStillInterpolated) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,100\n60,100\n300,400\n360,400\n");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 180), 250);  // 240 s is within 5x the usual 60 s
}

TEST(LoadTraceCells, ASparseHandWrittenTraceHasNoHoles) {
  // Irregular on purpose: each row is a corner of the curve, not a sample.
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,150\n600,150\n601,600\n1800,600\n1801,150\n7200,150\n");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 5000), 150);
}

TEST(LoadTraceTimes, FractionalTimesAreKeptExactly) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0.5,100\n10.5,200\n");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 5.5), 150);  // flooring would give 155
  EXPECT_EQ(t.start(), 1);
  EXPECT_EQ(t.end(), 10);
}

TEST(LoadTraceTimes, FractionalTimesThatFloorToTheSameSecondAreDistinct) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,100\n0.5,200\n2,200\n");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 0.25), 150);
}

// What a forecast made at `now` may read: rows strictly before it, and between two rows only
// once the later one is in the past too.
TEST(LoadTraceKnownAt, NeverReadsARowAtOrAfterNow) {
  const auto t = LoadTrace::parse_csv("time,ReadConnections\n0,100\n60,200\n120,900\n");
  EXPECT_DOUBLE_EQ(*t.known_at("ReadConnections", 30, 61), 150);  // both rows before 61
  EXPECT_FALSE(t.known_at("ReadConnections", 90, 120));           // 120's row is not in the past yet
  EXPECT_DOUBLE_EQ(*t.known_at("ReadConnections", 60, 61), 200);  // a row's own time
  EXPECT_FALSE(t.known_at("ReadConnections", 61, 61));            // now itself
  EXPECT_FALSE(t.known_at("ReadConnections", 500, 1000));         // after the last row: never measured
}

// One rule for a reading (model/reading.hpp): a cell that is not one is a hole where it stands,
// and the rows around it are kept.
struct CellCase {
  const char* name;
  const char* cell;
  bool reading;
};

class LoadTraceCell : public ::testing::TestWithParam<CellCase> {};

TEST_P(LoadTraceCell, IsAReadingOrAHole) {
  const std::string text = std::string("time,ReadConnections,lagSeconds\n0,100,1\n60,") + GetParam().cell + "," +
                           GetParam().cell + "\n120,300,3\n";
  const auto t = LoadTrace::parse_csv(text, "load.csv");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 0), 100);
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 120), 300);
  EXPECT_EQ(t.at("ReadConnections", 60).has_value(), GetParam().reading);
  EXPECT_EQ(t.at("lagSeconds", 60).has_value(), GetParam().reading);
}

INSTANTIATE_TEST_SUITE_P(Cases, LoadTraceCell,
                         ::testing::Values(CellCase{"zero", "0", true}, CellCase{"ordinary", "250", true},
                                           CellCase{"largest_plausible", "1e12", true},
                                           CellCase{"negative", "-5", false}, CellCase{"nan", "nan", false},
                                           CellCase{"infinite", "inf", false}, CellCase{"implausible", "2e12", false},
                                           CellCase{"empty", "", false}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(LoadTraceRows, FromRowsKeepsTheReadingsAndHolesTheRest) {
  const auto t = LoadTrace::from_rows({"ReadConnections"}, {0, 60, 120}, {{10.0}, {-1.0}, {30.0}}, "history");
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 0), 10);
  EXPECT_FALSE(t.at("ReadConnections", 60).has_value());
  EXPECT_DOUBLE_EQ(*t.at("ReadConnections", 120), 30);
  EXPECT_THROW(LoadTrace::from_rows({"ReadConnections"}, {0}, {{1.0}}, "history"), model::InputError);
  EXPECT_THROW(LoadTrace::from_rows({"ReadConnections"}, {60, 0}, {{1.0}, {2.0}}, "history"), model::InputError);
}

struct BadTrace {
  const char* name;
  const char* text;
  const char* error;
};

class LoadTraceRefuses : public ::testing::TestWithParam<BadTrace> {};

TEST_P(LoadTraceRefuses, WithAClearError) {
  try {
    LoadTrace::parse_csv(GetParam().text, "load.csv");
    FAIL() << "parsed";
  } catch (const model::InputError& e) {
    EXPECT_EQ(std::string(e.what()), GetParam().error);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LoadTraceRefuses,
    ::testing::Values(BadTrace{"single_row", "time,ReadConnections\n0,100\n",
                               "load.csv: has a single row (at least two rows are needed to span some time)"},
                      BadTrace{"under_a_second", "time,ReadConnections\n0.1,100\n0.9,100\n",
                               "load.csv: spans less than one whole second"},
                      BadTrace{
                          "all_nan_column", "time,ReadConnections,lagSeconds\n0,NaN,1\n60,,2\n120,+Inf,3\n",
                          "load.csv: column ReadConnections has no reading in any row (every cell is empty, NaN or "
                          "infinite)"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dha::testing
