#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dha/decide/load_trace.hpp"
#include "dha/kube/object_reader.hpp"
#include "dha/model/spec.hpp"
#include "simulate_target.hpp"
#include "tool_plugins.hpp"

// `simulate --from-metrics`: a database's own history as a load trace, read by the operator's
// observe stage (Observe::history): the plugins the operator's flags load, the engine adapter's
// queries, the namespace's monitoring label, the one rule for a valid reading, and the series added
// up over the read replicas as an instant read adds them up.
namespace dha::cli {

struct HistoryRequest {
  ToolPlugins plugins;
  std::string kind;
  std::string api_group;  // "" = the default group, as a DHA's targetRef
  std::string namespace_name;
  std::string name;
  std::string target_file;                      // "" = the cluster's object, or a minimal one with the identity above
  const kube::ObjectReader* cluster = nullptr;  // set: the target and its namespace are read from it
  // The driver columns to read, one per metric type, as the spec compares them (an
  // averageUtilization target: percent of the CPU request).
  std::vector<model::MetricSpec> metrics;
  std::int64_t since_seconds = 7 * 86400;
  std::int64_t step_seconds = 60;
  std::int64_t until = 0;  // unix seconds; 0 = now
  double timeout_seconds = 60;
};

struct History {
  decide::LoadTrace trace;  // time from 0 at `start`, one row per step
  std::int64_t start = 0;   // unix seconds of time 0
  std::int64_t rows = 0;
  TargetShape shape;  // from the adapter's topology of the target
  std::optional<std::string> monitoring_namespace;
  std::vector<std::string> notes;  // signals left out, steps left empty, and why
};

// Throws Exit(2) for bad input (unknown kind, a refused query, no history for a driver metric)
// and Exit(1) when the metric source fails.
History read_history(const HistoryRequest& request);

// "7d", "12h", "90m", "60s" or plain seconds; throws Exit(2) naming `flag` otherwise.
std::int64_t parse_duration_seconds(const std::string& text, const std::string& flag);

}  // namespace dha::cli
