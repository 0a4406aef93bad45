#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/sdk/metrics_types.hpp"

#include "plugin_host/plugin_instance.hpp"
#include "tenancy/query_template.hpp"

// One metric query as the operator runs it, shared by the observe stage and `db-autoscaler
// metrics` so that the tool shows what the operator sees: the adapter's template scoped to the
// target by the host, asked of the metric source, and the returned series combined into one value.
namespace dha::pipeline {

// How the series of one query become one value: load signals add up over the series (pods,
// databases, states), the replication lag is the worst one.
enum class Aggregation { kSum, kMax };
std::string_view to_string(Aggregation how);

struct MetricQueryResult {
  std::string query;            // as sent (the template when the tenancy check refused it)
  std::optional<double> value;  // nullopt: see problem
  std::size_t series = 0;       // how many series the source returned
  // For the operator's query counter: ok | refused | empty | unavailable | timeout | bad_response |
  // non_finite | out_of_range | too_large | error.
  std::string outcome;
  // Why there is no value ("" with one), three ways: the status name ("NOT_FOUND", "UNAVAILABLE",
  // ...); the reason alone, for a reader who sees which query it is (the metrics command); and a
  // sentence naming the signal, for a condition message or log line.
  std::string status;
  std::string detail;
  std::string problem;
};

// A scoped query's answer before its series are combined: the samples, or (status not DHA_OK)
// the failed result that says why there are none. A namespace-wide grouped query is fetched once
// and then combined per target (grouped_query.hpp).
struct SeriesAnswer {
  MetricQueryResult result;  // query as sent; on failure outcome, status, detail and problem
  dha_status status = DHA_OK;
  std::vector<sdk::Sample> samples;  // never empty when status is DHA_OK
  bool ok() const { return status == DHA_OK; }
};

// Scopes `query_template` to `target` (the host's tenancy check) and asks `source`.
SeriesAnswer fetch_series(const plugin_host::PluginInstance& source, const std::string& query_template,
                          const tenancy::TargetLabels& target, const std::optional<std::string>& monitoring_namespace,
                          double timeout_seconds, const std::string& what);

// The series of one answer combined as `how` says, refusing a reading no database can have;
// `r` is the answer's result (its query), returned with value, series and outcome filled in.
MetricQueryResult combine_series(MetricQueryResult r, const std::vector<sdk::Sample>& samples, Aggregation how,
                                 const std::string& what);

// fetch_series then combine_series. `what` names the signal in `problem` ("ReadConnections", "lag").
MetricQueryResult run_metric_query(const plugin_host::PluginInstance& source, const std::string& query_template,
                                   const tenancy::TargetLabels& target,
                                   const std::optional<std::string>& monitoring_namespace, double timeout_seconds,
                                   Aggregation how, const std::string& what);

}  // namespace dha::pipeline
