#include "dha/telemetry/registry.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

namespace dha::telemetry {
namespace {

TEST(Registry, SameNameSameShapeReturnsTheSameFamily) {
  Registry registry;
  auto& a = registry.counter("x_total", "help", {"code"});
  auto& b = registry.counter("x_total", "other help", {"code"});
  EXPECT_EQ(&a, &b);
}

TEST(Registry, SameNameOtherShapeThrows) {
  Registry registry;
  registry.counter("x_total", "help", {"code"});
  EXPECT_THROW(registry.gauge("x_total", "help", {"code"}), std::invalid_argument);
  EXPECT_THROW(registry.counter("x_total", "help", {"other"}), std::invalid_argument);
}

struct NameCase {
  const char* name;
  bool metric_ok;
  bool label_ok;
};

TEST(Registry, NameRules) {
  const NameCase cases[] = {
      {"a", true, true},     {"_a1", true, true},   {"a:b", true, false}, {"1a", false, false},
      {"", false, false},    {"a-b", false, false}, {"__x", true, false}, {"db_autoscaler_x", true, true},
      {"a b", false, false}, {"é", false, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(is_valid_metric_name(c.name), c.metric_ok) << c.name;
    EXPECT_EQ(is_valid_label_name(c.name), c.label_ok) << c.name;
  }
}

TEST(Registry, InvalidRegistrationsThrow) {
  Registry registry;
  EXPECT_THROW(registry.counter("bad-name", "h"), std::invalid_argument);
  EXPECT_THROW(registry.gauge("g", "h", {"ok", "ok"}), std::invalid_argument);
  EXPECT_THROW(registry.gauge("g", "h", {"__reserved"}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h", "h", {"le"}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h", "h", {}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(registry.histogram("h", "h", {}, {2, 1}), std::invalid_argument);
  EXPECT_EQ(registry.expose(), "");  // nothing half-registered
}

TEST(Family, WrongLabelArityThrows) {
  Registry registry;
  auto& gauges = registry.gauge("g", "h", {"namespace", "name"});
  EXPECT_THROW(gauges.with({"only-one"}), std::invalid_argument);
  EXPECT_THROW(gauges.remove({"a", "b", "c"}), std::invalid_argument);
  EXPECT_THROW(gauges.remove_matching({{"nope", "x"}}), std::invalid_argument);
}

TEST(Family, WithReturnsTheSameSeriesForTheSameLabels) {
  Registry registry;
  auto& counters = registry.counter("c_total", "h", {"code"});
  counters.with({"200"})->inc();
  counters.with({"200"})->inc(2);
  counters.with({"500"})->inc();
  EXPECT_EQ(counters.with({"200"})->value(), 3);
  EXPECT_EQ(counters.with({"500"})->value(), 1);
  EXPECT_EQ(counters.size(), 2u);
}

TEST(Counter, IgnoresNegativeAndNonFiniteIncrements) {
  Counter c;
  c.inc(-1);
  c.inc(std::numeric_limits<double>::quiet_NaN());
  c.inc(std::numeric_limits<double>::infinity());
  c.inc(0.5);
  EXPECT_EQ(c.value(), 0.5);
}

TEST(Gauge, SetAndAdd) {
  Gauge g;
  g.set(3);
  g.add(-5);
  EXPECT_EQ(g.value(), -2);
}

TEST(Family, RemoveDeletesOneSeries) {
  Registry registry;
  auto& gauges = registry.gauge("g", "h", {"namespace", "name"});
  gauges.with({"a", "db1"})->set(1);
  gauges.with({"a", "db2"})->set(2);
  EXPECT_TRUE(gauges.remove({"a", "db1"}));
  EXPECT_FALSE(gauges.remove({"a", "db1"}));
  EXPECT_EQ(gauges.size(), 1u);
  EXPECT_EQ(registry.expose().find("db1"), std::string::npos);
}

TEST(Family, RemoveMatchingDeletesEverySeriesOfADha) {
  Registry registry;
  auto& gauges = registry.gauge("g", "h", {"namespace", "name", "kind"});
  gauges.with({"a", "db", "x"})->set(1);
  gauges.with({"a", "db", "y"})->set(1);
  gauges.with({"b", "db", "x"})->set(1);
  EXPECT_EQ(gauges.remove_matching({{"namespace", "a"}, {"name", "db"}}), 2u);
  EXPECT_EQ(gauges.size(), 1u);
}

TEST(Family, HeldCellSurvivesRemoval) {
  Registry registry;
  auto& gauges = registry.gauge("g", "h", {"name"});
  auto cell = gauges.with({"x"});
  gauges.remove({"x"});
  cell->set(7);  // must not crash; simply no longer exported
  EXPECT_EQ(registry.expose().find("7"), std::string::npos);
}

TEST(Histogram, CountsIntoLeBuckets) {
  Histogram h({1, 2, 5});
  for (double v : {0.5, 1.0, 1.5, 2.0, 4.0, 100.0}) h.observe(v);
  h.observe(std::numeric_limits<double>::quiet_NaN());  // ignored
  auto snap = h.snapshot();
  ASSERT_EQ(snap.cumulative.size(), 4u);
  EXPECT_EQ(snap.cumulative[0], 2u);  // 0.5, 1.0 (le is inclusive)
  EXPECT_EQ(snap.cumulative[1], 4u);
  EXPECT_EQ(snap.cumulative[2], 5u);
  EXPECT_EQ(snap.cumulative[3], 6u);
  EXPECT_EQ(snap.count, 6u);
  EXPECT_DOUBLE_EQ(snap.sum, 109.0);
}

TEST(Registry, ConcurrentUpdatesAreNotLost) {
  Registry registry;
  auto& counters = registry.counter("c_total", "h", {"worker"});
  auto& hist = registry.histogram("lat_seconds", "h", {}, {0.5});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        counters.with({std::to_string(t % 2)})->inc();
        hist.with({})->observe(0.25);
        if (i % 1000 == 0) (void)registry.expose();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(counters.with({"0"})->value() + counters.with({"1"})->value(), 40000);
  EXPECT_EQ(hist.with({})->snapshot().count, 40000u);
}

TEST(Registry, ARemovedCollectorNeverRunsAgain) {
  Registry r;
  int kept = 0, removed = 0;
  r.add_collector([&] { ++kept; });
  const auto id = r.add_collector([&] { ++removed; });
  r.expose();
  r.remove_collector(id);
  r.remove_collector(id);       // twice: ignored
  r.remove_collector(id + 99);  // unknown: ignored
  r.expose();
  EXPECT_EQ(kept, 2);
  EXPECT_EQ(removed, 1);
}

TEST(Buckets, ExponentialAndValidation) {
  EXPECT_EQ(exponential_buckets(1, 2, 4), (std::vector<double>{1, 2, 4, 8}));
  EXPECT_THROW(exponential_buckets(0, 2, 3), std::invalid_argument);
  EXPECT_THROW(exponential_buckets(1, 1, 3), std::invalid_argument);
  EXPECT_THROW(exponential_buckets(1, 2, 0), std::invalid_argument);
}

}  // namespace
}  // namespace dha::telemetry
