#include "pipeline/metric_query.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "dha/model/reading.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "pipeline/query_error_text.hpp"

namespace dha::pipeline {
namespace {

std::string outcome_of(dha_status status) {
  switch (status) {
    case DHA_NOT_FOUND:
      return "empty";
    case DHA_UNAVAILABLE:
      return "unavailable";
    case DHA_DEADLINE_EXCEEDED:
      return "timeout";
    case DHA_DATA_LOSS:
      return "bad_response";
    case DHA_OUT_OF_RANGE:
      return "non_finite";
    case DHA_RESOURCE_EXHAUSTED:
      return "too_large";
    default:
      return "error";
  }
}

MetricQueryResult& fail(MetricQueryResult& r, std::string outcome, dha_status status, std::string detail,
                        std::string problem) {
  r.value.reset();
  r.outcome = std::move(outcome);
  r.status = sdk::status_name(status);
  r.detail = std::move(detail);
  r.problem = std::move(problem);
  return r;
}

}  // namespace

std::string_view to_string(Aggregation how) { return how == Aggregation::kMax ? "max" : "sum"; }

SeriesAnswer fetch_series(const plugin_host::PluginInstance& source, const std::string& query_template,
                          const tenancy::TargetLabels& target, const std::optional<std::string>& monitoring_namespace,
                          double timeout_seconds, const std::string& what) {
  SeriesAnswer a;
  MetricQueryResult& r = a.result;
  const auto scoped = tenancy::render_scoped_query(query_template, target);
  if (!scoped.ok()) {
    r.query = query_template;
    a.status = DHA_PERMISSION_DENIED;
    fail(r, "refused", a.status, "refused by the host's tenancy check: " + scoped.refusal,
         "query for " + what + " refused: " + scoped.refusal);
    return a;
  }
  r.query = scoped.query;
  const sdk::InstantQuery request{scoped.query, target.namespace_name, monitoring_namespace, timeout_seconds};
  const auto result = source.call(source.metrics()->instant_query, request.to_json());
  if (!result.ok()) {
    a.status = result.status;
    const std::string outcome = outcome_of(result.status);
    std::string error = without_encoded_query(result.error);
    if (result.status == DHA_NOT_FOUND)
      fail(r, outcome, result.status, std::move(error), "query for " + what + " returned no series");
    else
      fail(r, outcome, result.status, error, "query for " + what + " failed (" + outcome + "): " + error);
    return a;
  }
  try {
    a.samples = sdk::Samples::from_json(sdk::json::parse(result.output, "samples")).samples;
  } catch (const std::exception& e) {
    a.status = DHA_DATA_LOSS;
    fail(r, "bad_response", a.status, std::string("the metric source answered badly: ") + e.what(),
         "answer to the query for " + what + " unreadable: " + e.what());
    return a;
  }
  if (a.samples.empty()) {
    a.status = DHA_NOT_FOUND;
    fail(r, "empty", a.status, "the query returned no series", "query for " + what + " returned no series");
  }
  return a;
}

MetricQueryResult combine_series(MetricQueryResult r, const std::vector<sdk::Sample>& samples, Aggregation how,
                                 const std::string& what) {
  r.series = samples.size();
  if (samples.empty())
    return fail(r, "empty", DHA_NOT_FOUND, "the query returned no series", "query for " + what + " returned no series");
  double value = how == Aggregation::kMax ? -INFINITY : 0;
  for (const auto& s : samples) {
    // One series that is not a reading (model/reading.hpp) leaves this one a hole: a sum without
    // it would be too low, a maximum perhaps wrong.
    const model::ReadingFault fault = model::reading_fault(s.value);
    if (fault == model::ReadingFault::kNotFinite)
      return fail(r, "non_finite", DHA_OUT_OF_RANGE, "the query returned a non-finite value",
                  "query for " + what + " returned a non-finite value");
    if (fault != model::ReadingFault::kNone) {
      const std::string reading = model::describe_fault(fault, s.value);
      return fail(r, "out_of_range", DHA_OUT_OF_RANGE, "a series returned " + reading,
                  what + " query returned " + reading);
    }
    value = how == Aggregation::kMax ? std::max(value, s.value) : value + s.value;
  }
  // A sum of plausible readings can still overflow to infinity: no number to scale on.
  if (!std::isfinite(value))
    return fail(r, "non_finite", DHA_OUT_OF_RANGE, "the query returned a non-finite value",
                "query for " + what + " returned a non-finite value");
  r.outcome = "ok";
  r.value = value;
  return r;
}

MetricQueryResult run_metric_query(const plugin_host::PluginInstance& source, const std::string& query_template,
                                   const tenancy::TargetLabels& target,
                                   const std::optional<std::string>& monitoring_namespace, double timeout_seconds,
                                   Aggregation how, const std::string& what) {
  SeriesAnswer a = fetch_series(source, query_template, target, monitoring_namespace, timeout_seconds, what);
  if (!a.ok()) return std::move(a.result);
  return combine_series(std::move(a.result), a.samples, how, what);
}

}  // namespace dha::pipeline
