#include "dha/telemetry/registry.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace dha::telemetry {
namespace {

TEST(Exposition, CounterAndGaugeInTextFormat004) {
  Registry registry;
  registry.counter("requests_total", "Requests by code.", {"code"}).with({"200"})->inc(3);
  auto& g = registry.gauge("db_autoscaler_current_replicas", "Observed count.", {"namespace", "name"});
  g.with({"tenant-a", "db"})->set(3.5);
  EXPECT_EQ(registry.expose(),
            "# HELP db_autoscaler_current_replicas Observed count.\n"
            "# TYPE db_autoscaler_current_replicas gauge\n"
            "db_autoscaler_current_replicas{namespace=\"tenant-a\",name=\"db\"} 3.5\n"
            "# HELP requests_total Requests by code.\n"
            "# TYPE requests_total counter\n"
            "requests_total{code=\"200\"} 3\n");
}

TEST(Exposition, UnlabelledFamilyHasNoBraces) {
  Registry registry;
  registry.gauge("up", "h").with({})->set(1);
  EXPECT_EQ(registry.expose(), "# HELP up h\n# TYPE up gauge\nup 1\n");
}

TEST(Exposition, FamilyWithoutSeriesStillHasHeader) {
  Registry registry;
  registry.gauge("g", "h", {"a"});
  EXPECT_EQ(registry.expose(), "# HELP g h\n# TYPE g gauge\n");
}

TEST(Exposition, EscapesHelpAndLabelValues) {
  Registry registry;
  registry.gauge("g", "line1\nback\\slash \"quoted\"", {"v"}).with({"a\"b\\c\nd"})->set(1);
  EXPECT_EQ(registry.expose(),
            "# HELP g line1\\nback\\\\slash \"quoted\"\n"
            "# TYPE g gauge\n"
            "g{v=\"a\\\"b\\\\c\\nd\"} 1\n");
}

struct ValueCase {
  double value;
  const char* text;
};

TEST(Exposition, SpecialAndLargeValues) {
  const ValueCase cases[] = {
      {0, "0"},
      {-2, "-2"},
      {0.1, "0.1"},
      {1e21, "1e+21"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
  };
  for (const auto& c : cases) {
    Registry registry;
    registry.gauge("g", "h").with({})->set(c.value);
    EXPECT_EQ(registry.expose(), std::string("# HELP g h\n# TYPE g gauge\ng ") + c.text + "\n") << c.text;
  }
}

TEST(Exposition, HistogramBucketsSumAndCount) {
  Registry registry;
  auto& h = registry.histogram("lat_seconds", "Latency.", {"webhook"}, {0.001, 0.01});
  h.with({"/v"})->observe(0.0005);
  h.with({"/v"})->observe(0.005);
  h.with({"/v"})->observe(1);
  EXPECT_EQ(registry.expose(),
            "# HELP lat_seconds Latency.\n"
            "# TYPE lat_seconds histogram\n"
            "lat_seconds_bucket{webhook=\"/v\",le=\"0.001\"} 1\n"
            "lat_seconds_bucket{webhook=\"/v\",le=\"0.01\"} 2\n"
            "lat_seconds_bucket{webhook=\"/v\",le=\"+Inf\"} 3\n"
            "lat_seconds_sum{webhook=\"/v\"} 1.0055\n"
            "lat_seconds_count{webhook=\"/v\"} 3\n");
}

}  // namespace
}  // namespace dha::telemetry
