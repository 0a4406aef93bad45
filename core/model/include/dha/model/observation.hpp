#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// One cycle's immutable view of the target, as the operator (or a user of `decide`) saw it.
namespace dha::model {

struct MetricReading {
  std::string type;
  std::optional<double> value;  // the driver query's SUM over read-serving replicas; nullopt = unavailable
};

// A forecast made outside decide() from the metric's own history (the simulator makes one from a
// trace's earlier days): the largest demand, in read replicas at target and with its error margin,
// expected within horizon_seconds from now.
struct Forecast {
  Forecast() = default;
  // The estimate is optional so that a forecast made without one reads as it always did.
  Forecast(double reads, std::int64_t horizon, std::optional<double> central = std::nullopt)
      : read_replicas(reads), horizon_seconds(horizon), estimate(central) {}
  double read_replicas = 0;
  std::int64_t horizon_seconds = 0;
  // The central estimate of that demand, without the margin (at most read_replicas): the Adaptive
  // policy raises a comfortable size only for it. nullopt: the maker gave only the figure with
  // the margin, which then serves as both.
  std::optional<double> estimate;
  double central() const { return estimate.value_or(read_replicas); }
  bool operator==(const Forecast&) const = default;
};

struct Observation {
  std::int32_t current_replicas = 0;  // total instances in the target's replicas field
  std::int32_t primary_count = 1;
  std::int32_t quorum_floor = 1;  // the adapter's floor; respectQuorum=false makes it 1
  bool health_known = true;       // false: health object missing or unreadable (freeze)
  bool operational = true;
  std::int32_t available_replicas = 0;
  std::vector<MetricReading> metrics;
  std::optional<double> lag_seconds;               // nullopt: no lag signal
  std::optional<double> write_rate;                // nullopt: write activity unknown
  std::optional<std::int32_t> quota_max_replicas;  // nullopt: no quota ceiling
  std::optional<Forecast> forecast;                // used only by the Adaptive policy when predictive
  // The engine adapter's estimate of how long a new replica of this target takes to be ready, in
  // seconds (from the data it must copy). nullopt: no estimate. The Adaptive policy uses it only
  // while the DHA has no measured ready time of its own, and only within a sane range.
  std::optional<double> ready_estimate_seconds;
  // Why a predictive DHA's observation has no forecast (the history could not be read, or holds no
  // earlier day): shown in the decision's trace, so that the tenant sees what the operator lacks.
  std::string forecast_missing;

  bool converged() const { return available_replicas == current_replicas; }
  const MetricReading* find_metric(const std::string& type) const;
};

// `availableReplicas` defaults to `currentReplicas`; throws InputError naming the field.
Observation parse_observation(const rapidjson::Value& v, const std::string& path = "observation");

rapidjson::Value observation_to_json(const Observation& obs, rapidjson::Document::AllocatorType& alloc);

}  // namespace dha::model
