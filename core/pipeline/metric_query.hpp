#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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

// `what` names the signal in `problem` ("ReadConnections", "lag").
MetricQueryResult run_metric_query(const plugin_host::PluginInstance& source, const std::string& query_template,
                                   const tenancy::TargetLabels& target,
                                   const std::optional<std::string>& monitoring_namespace, double timeout_seconds,
                                   Aggregation how, const std::string& what);

}  // namespace dha::pipeline
