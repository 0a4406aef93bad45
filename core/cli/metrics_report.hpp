#pragma once

#include <cstdint>
#include <string>

#include "dha/model/spec.hpp"
#include "dha/sdk/engine_types.hpp"
#include "host/plugin_set.hpp"
#include "pipeline/observe.hpp"

// What `db-autoscaler metrics` prints: the observe stage's signals of one target as one JSON
// document (target, monitoring namespace, queries, how their series were combined, the values
// the operator sees, the per-read-replica values the gates compare, and why any is missing).
namespace dha::cli {

struct MetricsReport {
  const model::DhaSpec& spec;
  const op::EngineBinding& engine;
  const std::string& namespace_name;
  const sdk::Topology& topology;
  const pipeline::Signals& signals;
  std::int32_t replicas = 0;  // 0: the topology's
};

void print_metrics_report(const MetricsReport& report);

// The same document when the observe stage stopped before the signals (the target missing, or
// its adapter refusing it): the target and, under "errors", why.
void print_metrics_stop(const model::DhaSpec& spec, const op::EngineBinding& engine, const std::string& namespace_name,
                        const std::string& why);

// Whether a query was sent (or refused) and gave no value; a signal without a query is no failure.
bool any_query_failed(const pipeline::Signals& signals);

}  // namespace dha::cli
