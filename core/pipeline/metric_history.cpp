#include "pipeline/metric_history.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "dha/model/input_error.hpp"
#include "dha/model/reading.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "dha/sdk/range_query_types.hpp"
#include "plugin_host/range_query_call.hpp"

namespace dha::history {
namespace {

using Signal = std::optional<std::map<std::int64_t, double>>;

// One signal over the grid; nullopt when no series has any point.
Signal read_signal(const HistoryQuery& h, const std::string& query_template, bool take_max, const std::string& what,
                   std::vector<std::string>& notes) {
  const tenancy::ScopedQuery scoped = tenancy::render_scoped_query(query_template, h.target);
  if (!scoped.ok()) throw HistoryError(true, what + " query refused by the host's tenancy check: " + scoped.refusal);
  sdk::RangeQuery q;
  q.query = scoped.query;
  q.namespace_name = h.target.namespace_name;
  q.monitoring_namespace = h.monitoring_namespace;
  q.start = h.grid.start;
  q.end = h.grid.end;
  q.step = h.grid.step;
  q.timeout_seconds = h.timeout_seconds;
  const plugin_host::CallResult result = plugin_host::call_range_query(h.source, q.to_json());
  if (result.status == DHA_NOT_FOUND) return std::nullopt;
  if (!result.ok())
    throw HistoryError(
        result.status == DHA_INVALID_ARGUMENT || result.status == DHA_FAILED_PRECONDITION ||
            result.status == DHA_UNIMPLEMENTED,
        fmt::format("{} range query failed ({}): {}", what, sdk::status_name(result.status), result.error));
  sdk::RangeResult range;
  try {
    range = sdk::RangeResult::from_json(sdk::json::parse(result.output, "range result"));
  } catch (const std::exception& e) {
    throw HistoryError(false, fmt::format("{}: the metric source answered badly: {}", what, e.what()));
  }
  std::map<std::int64_t, double> out;
  std::set<std::int64_t> holes;  // a step where some series is not a reading (model/reading.hpp)
  for (const auto& series : range.series) {
    for (const auto& [t, v] : series.points) {
      if (t < h.grid.start || t > h.grid.end || (t - h.grid.start) % h.grid.step != 0) continue;  // not asked for
      if (!model::valid_reading(v)) {
        holes.insert(t);
        continue;
      }
      auto [it, inserted] = out.emplace(t, v);
      if (!inserted) it->second = take_max ? std::max(it->second, v) : it->second + v;
    }
  }
  // A sum without one of its series would be too low: the step is a hole, the others stay.
  for (const auto t : holes) out.erase(t);
  if (!holes.empty())
    notes.push_back(fmt::format("{}: {} of {} steps left empty (a series returned no valid reading there)", what,
                                holes.size(), h.grid.rows()));
  if (out.empty()) return std::nullopt;
  return out;
}

// As the observe stage: a lag in seconds only, and write activity only where there is a lag.
void add_lag_columns(const HistoryQuery& h, std::vector<std::pair<std::string, Signal>>& columns,
                     std::vector<std::string>& notes) {
  const sdk::Queries& queries = h.queries;
  if (queries.lag_query.empty() || queries.lag_unit != "seconds") {
    notes.push_back("no lag column: the adapter has no lag query in seconds");
    return;
  }
  auto lag = read_signal(h, queries.lag_query, true, "lag", notes);
  if (!lag) {
    notes.push_back("no lag column: the lag query found no series");
    return;
  }
  Signal writes;
  if (!queries.write_activity.empty()) writes = read_signal(h, queries.write_activity, false, "write activity", notes);
  if (writes) {
    for (auto it = writes->begin(); it != writes->end();)
      it = lag->count(it->first) ? std::next(it) : writes->erase(it);
  } else {
    notes.push_back("no writeRate column: the write activity query found no series");
  }
  columns.emplace_back("lagSeconds", std::move(lag));
  if (writes) columns.emplace_back("writeRate", std::move(writes));
}

}  // namespace

Grid grid_ending_at(std::int64_t until, std::int64_t span, std::int64_t step) {
  return {(until - span) / step * step, until / step * step, step};
}

sdk::Queries engine_queries(const plugin_host::PluginInstance& engine, const sdk::QueryRequest& request) {
  const plugin_host::CallResult qr = engine.call(engine.engine()->queries, request.to_json());
  try {
    if (!qr.ok()) throw std::runtime_error(qr.error);
    return sdk::Queries::from_json(sdk::json::parse(qr.output, "queries"));
  } catch (const std::exception& e) {
    throw HistoryError(false, "engine adapter queries() failed: " + std::string(e.what()));
  }
}

Trace read_trace(const HistoryQuery& h) {
  if (h.metric_types.empty()) throw HistoryError(true, "the DHA names no metrics to read");
  if (h.grid.step <= 0 || h.grid.end < h.grid.start) throw HistoryError(true, "an empty history range");
  if (h.grid.rows() > DHA_METRICS_MAX_RANGE_POINTS)
    throw HistoryError(true, fmt::format("{} steps, more than the {} a range query may ask for; use a larger step",
                                         h.grid.rows(), DHA_METRICS_MAX_RANGE_POINTS));
  Trace trace;
  std::vector<std::pair<std::string, Signal>> columns;
  for (const auto& type : h.metric_types) {
    const auto it = h.queries.driver.find(type);
    if (it == h.queries.driver.end()) throw HistoryError(true, "the engine adapter has no query for metric " + type);
    auto signal = read_signal(h, it->second, false, type, trace.notes);
    if (!signal) throw HistoryError(true, fmt::format("{}: no history in the range (the query found no series)", type));
    if (const auto factor = h.scale.find(type); factor != h.scale.end())
      for (auto& [t, v] : *signal) v *= factor->second;
    columns.emplace_back(type, std::move(signal));
  }
  if (h.with_lag) add_lag_columns(h, columns, trace.notes);

  std::vector<std::string> names;
  for (const auto& [name, signal] : columns) names.push_back(name);
  std::vector<double> times;
  std::vector<std::vector<std::optional<double>>> cells;
  for (std::int64_t t = h.grid.start; t <= h.grid.end; t += h.grid.step) {
    times.push_back(static_cast<double>(t - h.grid.start));
    auto& row = cells.emplace_back();
    for (const auto& [name, signal] : columns) {
      std::optional<double> cell;
      if (signal)
        if (const auto it = signal->find(t); it != signal->end()) cell = it->second;
      row.push_back(cell);
    }
  }
  try {
    trace.trace = decide::LoadTrace::from_rows(std::move(names), std::move(times), std::move(cells), "metric history");
  } catch (const model::InputError& e) {
    throw HistoryError(true, std::string("the metric history is unusable: ") + e.what());
  }
  return trace;
}

}  // namespace dha::history
