#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dha/decide/load_trace.hpp"
#include "dha/sdk/engine_types.hpp"
#include "plugin_host/plugin_instance.hpp"
#include "tenancy/query_template.hpp"

// A target's history as a load trace, read through the one query path the operator uses: the
// engine adapter's queries, rendered and scope-checked by the host's tenancy code, run by the
// metric source as range queries, and added up over the series at each step as the observe stage
// adds up an instant vector (the lag: their maximum). A step where a series is not a reading
// (model/reading.hpp) is a hole in that signal, as such an instant read is.
namespace dha::history {

// Why a history could not be read: the request itself (a refused query, a source that cannot
// answer range queries, no series for a driver metric), or the metric source failing.
class HistoryError : public std::runtime_error {
 public:
  HistoryError(bool bad_input, const std::string& what) : std::runtime_error(what), bad_input_(bad_input) {}
  bool bad_input() const { return bad_input_; }

 private:
  bool bad_input_;
};

// Evaluation times start, start + step, ..., end (all multiples of step).
struct Grid {
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t step = 60;
  std::int64_t rows() const { return (end - start) / step + 1; }
};

// The `span` seconds up to `until`, aligned to `step`.
Grid grid_ending_at(std::int64_t until, std::int64_t span, std::int64_t step);

struct HistoryQuery {
  const plugin_host::PluginInstance& source;
  const sdk::Queries& queries;
  tenancy::TargetLabels target;
  std::optional<std::string> monitoring_namespace;
  std::vector<std::string> metric_types;  // driver columns, each required
  Grid grid;
  double timeout_seconds = 30;
  bool with_lag = true;  // also the lagSeconds and writeRate columns when the adapter has them
  // A driver column's readings times this (absent: 1): a CPU reading as the percentage of the
  // CPU request an averageUtilization target compares.
  std::map<std::string, double> scale = {};
};

struct Trace {
  decide::LoadTrace trace;         // time from 0 at grid.start, one row per step
  std::vector<std::string> notes;  // optional signals left out, steps left empty, and why
};

// Throws HistoryError; a grid of more rows than a range query may ask for is bad input.
Trace read_trace(const HistoryQuery& q);

}  // namespace dha::history
