// status.currentMetrics shows each metric on its own: a failed metric is <unknown> in the Metrics
// column, the others keep their reading although the decision (frozen) used none of them.
#include <gtest/gtest.h>

#include <limits>

#include "dha/model/status_display.hpp"
#include "dha/status_writer/metric_readings.hpp"

namespace dha::status {
namespace {

model::DhaSpec two_metrics() {
  model::DhaSpec spec;
  model::MetricSpec connections;
  connections.type = model::MetricType::ReadConnections;
  connections.target = *model::parse_quantity("100");
  model::MetricSpec cpu;
  cpu.type = model::MetricType::ReadCPUUtilization;
  cpu.average_utilization = 70;
  spec.metrics = {connections, cpu};
  return spec;
}

model::Observation observed(std::optional<double> connections, std::optional<double> cpu_percent) {
  model::Observation obs;
  obs.current_replicas = 3;  // the primary and 2 read replicas
  obs.primary_count = 1;
  obs.metrics = {{"ReadConnections", connections}, {"ReadCPUUtilization", cpu_percent}};
  return obs;
}

TEST(MetricReadings, AFailedMetricIsUnknownTheOtherKeepsItsReading) {
  const auto spec = two_metrics();
  decide::Decision frozen;  // MetricUnavailable: the decision evaluated no metric
  const auto obs = observed(80, std::nullopt);
  const auto readings = metric_readings(spec, frozen, &obs);
  EXPECT_EQ(readings, (std::vector<model::CurrentMetric>{{"ReadConnections", "40"}}));
  EXPECT_EQ(model::metrics_display(spec, readings), "40/100 (ReadConnections), <unknown>/70% (ReadCPUUtilization)");

  const auto other_way = observed(std::nullopt, 130);
  EXPECT_EQ(model::metrics_display(spec, metric_readings(spec, frozen, &other_way)),
            "<unknown>/100 (ReadConnections), 65%/70% (ReadCPUUtilization)");
  // A reading that is not a number is no reading.
  const auto nan = observed(std::numeric_limits<double>::quiet_NaN(), 130);
  EXPECT_EQ(metric_readings(spec, frozen, &nan), (std::vector<model::CurrentMetric>{{"ReadCPUUtilization", "65"}}));
  EXPECT_TRUE(metric_readings(spec, frozen, nullptr).empty());
}

TEST(MetricReadings, TheDecisionsEvaluationWhenItMadeOne) {
  auto spec = two_metrics();
  decide::Decision d;
  d.metrics = {{model::MetricType::ReadConnections, 75.5, 100, 3},
               {model::MetricType::ReadCPUUtilization, 64.4, 70, 3}};
  // The observation is not asked again: the decision's averages are what it decided on.
  const auto obs = observed(1000, 1000);
  EXPECT_EQ(metric_readings(spec, d, &obs),
            (std::vector<model::CurrentMetric>{{"ReadConnections", "76"}, {"ReadCPUUtilization", "64"}}));
  // CPU as a quantity is millicores, truncated.
  spec.metrics[1].average_utilization.reset();
  spec.metrics[1].target = *model::parse_quantity("250m");
  d.metrics[1].average = 210.9;
  EXPECT_EQ(metric_readings(spec, d, &obs)[1], (model::CurrentMetric{"ReadCPUUtilization", "210m"}));
}

}  // namespace
}  // namespace dha::status
