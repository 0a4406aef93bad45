#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/engine_types.hpp"
#include "pipeline/history_cache.hpp"
#include "plugin_host/plugin_instance.hpp"
#include "tenancy/query_template.hpp"

// The forecast a predictive DHA's observation carries: two weeks of the driving metrics' history,
// read through the same query path as `simulate --from-metrics` and cached per DHA, given to the
// same seasonal forecast the simulator uses.
namespace dha::pipeline {

// What a reconcile knows that the forecast depends on, besides the target.
struct PredictiveContext {
  std::string uid;              // the DHA's
  std::int64_t generation = 0;  // the DHA spec's (not a key of the history: see HistoryCache)
  std::int64_t now = 0;         // unix seconds
  // How long a new replica took to become ready, measured on the DHA's last scale-up (status
  // readySeconds); nullopt: not measured yet, and the adapter's estimate or the assumption serves.
  std::optional<std::int64_t> ready_seconds;
  std::int64_t interval_seconds = 60;                           // between reconciles
  std::optional<double> ready_estimate_seconds = std::nullopt;  // the adapter's, read in this cycle
};

// Two weeks and a day, so the forecast can compare each weekday with the same weekday of the two
// weeks before, at two-minute steps: 10 801 points, within one range query's limit.
inline constexpr std::int64_t kHistorySeconds = 15 * 86400;
inline constexpr std::int64_t kHistoryStepSeconds = 120;

struct HistorySource {
  const plugin_host::PluginInstance& source;
  const sdk::Queries& queries;
  tenancy::TargetLabels target;
  std::optional<std::string> monitoring_namespace;
  double timeout_seconds = 10;
  std::map<std::string, double> scale = {};  // as history::HistoryQuery's: utilization in percent
};

// What the history of `spec` depends on: its metric types (in any order) and the target's labels.
// Two specs with the same text here read the same history.
std::string history_depends_on(const tenancy::TargetLabels& target,
                               const std::optional<std::string>& monitoring_namespace, const model::DhaSpec& spec);

// The kHistorySeconds up to `now` of each of the spec's metrics, or why it could not be read.
HistoryOrReason fetch_history(const HistorySource& h, const model::DhaSpec& spec, std::int64_t now);

struct ForecastOrReason {
  std::optional<model::Forecast> forecast;
  std::string reason;  // when there is no forecast
};

// The forecast for the horizon the simulator uses, from a fetched history.
ForecastOrReason forecast_from(const HistoryOrReason& history, const model::DhaSpec& spec,
                               const PredictiveContext& context);

// Whether the spec asks for a forecast at all.
bool wants_forecast(const model::DhaSpec& spec);

// Puts the forecast in `obs.forecast`, or the reason there is none in `obs.forecast_missing`;
// fetches the history through `cache` (at most once per refresh period per DHA, whatever the
// spec writes in between).
void observe_forecast(HistoryCache& cache, const HistorySource& h, const model::DhaSpec& spec,
                      const PredictiveContext& context, model::Observation& obs);

}  // namespace dha::pipeline
