#include "pipeline/predictive_forecast.hpp"

#include <algorithm>

#include "dha/decide/adaptive_policy.hpp"
#include "dha/decide/seasonal_forecast.hpp"
#include "pipeline/metric_history.hpp"

namespace dha::pipeline {

namespace {

std::vector<std::string> metric_types(const model::DhaSpec& spec) {
  std::vector<std::string> types;
  for (const auto& m : spec.metrics) {
    const std::string type(model::to_string(m.type));
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  return types;
}

}  // namespace

std::string history_depends_on(const tenancy::TargetLabels& target,
                               const std::optional<std::string>& monitoring_namespace, const model::DhaSpec& spec) {
  std::vector<std::string> types = metric_types(spec);
  std::sort(types.begin(), types.end());
  std::string out = target.namespace_name + '\x1f' + target.name + '\x1f' + target.release + '\x1f' +
                    monitoring_namespace.value_or("") + '\x1f';
  for (const auto& t : types) out += t + ',';
  return out;
}

HistoryOrReason fetch_history(const HistorySource& h, const model::DhaSpec& spec, std::int64_t now) {
  const std::vector<std::string> types = metric_types(spec);
  const history::Grid grid = history::grid_ending_at(now, kHistorySeconds, kHistoryStepSeconds);
  try {
    history::Trace trace = history::read_trace(
        {h.source, h.queries, h.target, h.monitoring_namespace, types, grid, h.timeout_seconds, false, h.scale});
    return FetchedHistory{grid.start, std::move(trace.trace)};
  } catch (const history::HistoryError& e) {
    return std::string(e.what());
  }
}

ForecastOrReason forecast_from(const HistoryOrReason& history, const model::DhaSpec& spec,
                               const PredictiveContext& context) {
  if (const auto* reason = std::get_if<std::string>(&history)) return {std::nullopt, *reason};
  const auto& fetched = std::get<FetchedHistory>(history);
  // The ready time decide() sizes a step for: measured, else the adapter's estimate, else assumed.
  const std::int64_t ready = decide::ready_time(spec, context.ready_seconds, context.ready_estimate_seconds).seconds;
  const std::int64_t horizon = decide::forecast_horizon(spec, ready, context.interval_seconds);
  auto forecast = decide::seasonal_forecast(spec, fetched.trace, context.now - fetched.start, horizon);
  if (!forecast) return {std::nullopt, "the metric history holds no earlier day to forecast from"};
  return {forecast, ""};
}

bool wants_forecast(const model::DhaSpec& spec) {
  return spec.behavior.policy == model::ScalingPolicy::Adaptive && spec.behavior.adaptive.predictive;
}

void observe_forecast(HistoryCache& cache, const HistorySource& h, const model::DhaSpec& spec,
                      const PredictiveContext& context, model::Observation& obs) {
  const auto history = cache.get(context.uid, history_depends_on(h.target, h.monitoring_namespace, spec), context.now,
                                 [&] { return fetch_history(h, spec, context.now); });
  ForecastOrReason f = forecast_from(*history, spec, context);
  obs.forecast = f.forecast;
  obs.forecast_missing = std::move(f.reason);
}

}  // namespace dha::pipeline
