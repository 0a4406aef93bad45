#include "dha/decide/load_trace.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "dha/model/input_error.hpp"
#include "dha/model/reading.hpp"
#include "dha/model/spec.hpp"

namespace dha::decide {
namespace {

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split(std::string_view line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    out.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

bool known_column(const std::string& name) {
  return name == "lagSeconds" || name == "writeRate" || name == "readyEstimateSeconds" ||
         model::parse_metric_type(name).has_value();
}

// The longest stretch between two rows that is still a measurement. A trace sampled at a regular
// spacing (as a metrics export is: at least half of its gaps are the median one) has a hole where
// rows are missing for longer than kOutageGapFactor spacings; a hand-written trace, sparse and
// irregular by design, has none.
double longest_segment(const std::vector<double>& times) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
  std::vector<double> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const auto regular =
      std::count_if(gaps.begin(), gaps.end(), [&](double g) { return std::fabs(g - median) <= median * 0.01; });
  if (static_cast<std::size_t>(regular) * 2 < gaps.size()) return std::numeric_limits<double>::infinity();
  return kOutageGapFactor * median;
}

}  // namespace

LoadTrace LoadTrace::parse_csv(std::string_view text, const std::string& source) {
  LoadTrace trace;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  std::vector<std::string> header;
  std::size_t time_col = 0;
  while (pos <= text.size()) {
    const auto nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    const std::string where = source + " line " + std::to_string(line_no);
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    auto cells = split(line);
    if (header.empty()) {
      header = cells;
      auto it = std::find(header.begin(), header.end(), "time");
      if (it == header.end()) throw model::InputError(where, "header has no \"time\" column");
      time_col = static_cast<std::size_t>(it - header.begin());
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (i == time_col) continue;
        if (!known_column(header[i]))
          throw model::InputError(where, "unknown column \"" + header[i] +
                                             "\" (expected time, ReadConnections, ReadCPUUtilization, "
                                             "lagSeconds, writeRate, readyEstimateSeconds)");
        if (std::count(header.begin(), header.end(), header[i]) > 1)
          throw model::InputError(where, "duplicate column \"" + header[i] + "\"");
        trace.columns_.push_back(header[i]);
      }
      continue;
    }
    if (cells.size() != header.size())
      throw model::InputError(
          where, "has " + std::to_string(cells.size()) + " cells, header has " + std::to_string(header.size()));
    std::vector<std::optional<double>> row;
    double time = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      std::optional<double> value;
      if (!cells[i].empty()) {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(cells[i].c_str(), &end);
        if (end != cells[i].c_str() + cells[i].size() || errno == ERANGE)
          throw model::InputError(where, "column " + header[i] + ": \"" + cells[i] + "\" is not a number");
        value = v;
      }
      if (i == time_col) {
        if (!value || !std::isfinite(*value) || std::fabs(*value) > 1e15)
          throw model::InputError(where, "column time: must be a number of seconds");
        time = *value;  // kept exact: a fractional time is a real instant, not rounded away
        continue;
      }
      // A cell that is not a reading (negative, non-finite, implausible) is a hole, as the
      // operator treats such a query result: one bad point does not cost the trace.
      row.push_back(value ? model::valid_reading(*value) : std::nullopt);
    }
    if (!trace.times_.empty() && time <= trace.times_.back())
      throw model::InputError(where, "column time: must increase strictly from row to row");
    trace.times_.push_back(time);
    trace.cells_.push_back(std::move(row));
  }
  if (header.empty()) throw model::InputError(source, "empty (a header row with \"time\" is required)");
  trace.finish(source);
  // A column that never holds a reading is a broken export, not an outage: say so.
  for (std::size_t c = 0; c < trace.columns_.size(); ++c) {
    const bool any = std::any_of(trace.cells_.begin(), trace.cells_.end(), [&](const auto& row) { return row[c]; });
    if (!any)
      throw model::InputError(
          source, "column " + trace.columns_[c] + " has no reading in any row (every cell is empty, NaN or infinite)");
  }
  return trace;
}

LoadTrace LoadTrace::from_rows(std::vector<std::string> columns, std::vector<double> times,
                               std::vector<std::vector<std::optional<double>>> cells, const std::string& source) {
  LoadTrace trace;
  for (const auto& c : columns)
    if (!known_column(c)) throw model::InputError(source, "unknown column \"" + c + "\"");
  if (cells.size() != times.size()) throw model::InputError(source, "a row count differs from the time count");
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (cells[i].size() != columns.size()) throw model::InputError(source, "a row has another number of cells");
    if (!std::isfinite(times[i]) || (i > 0 && times[i] <= times[i - 1]))
      throw model::InputError(source, "times must increase strictly from row to row");
    for (auto& cell : cells[i])
      if (cell) cell = model::valid_reading(*cell);
  }
  trace.columns_ = std::move(columns);
  trace.times_ = std::move(times);
  trace.cells_ = std::move(cells);
  trace.finish(source);
  return trace;
}

std::string LoadTrace::to_csv() const {
  std::string out = "time";
  for (const auto& c : columns_) out += "," + c;
  out += "\n";
  for (std::size_t row = 0; row < times_.size(); ++row) {
    out += fmt::format("{}", times_[row]);
    for (const auto& cell : cells_[row]) out += cell ? fmt::format(",{}", *cell) : std::string(",");
    out += "\n";
  }
  return out;
}

void LoadTrace::finish(const std::string& source) {
  if (times_.empty()) throw model::InputError(source, "has a header but no rows");
  if (times_.size() == 1)
    throw model::InputError(source, "has a single row (at least two rows are needed to span some time)");
  if (end() <= start()) throw model::InputError(source, "spans less than one whole second");
  max_segment_seconds_ = longest_segment(times_);
}

bool LoadTrace::has_column(std::string_view name) const {
  return std::find(columns_.begin(), columns_.end(), name) != columns_.end();
}

std::optional<double> LoadTrace::known_at(std::string_view column, double time, double now) const {
  if (!(time < now)) return std::nullopt;
  // Between two rows the value depends on the later one: known only once that row is in the past.
  const auto upper = std::upper_bound(times_.begin(), times_.end(), time);
  const bool on_a_row = upper != times_.begin() && *(upper - 1) == time;
  if (!on_a_row && upper != times_.end() && !(*upper < now)) return std::nullopt;
  if (upper == times_.end() && time > times_.back()) return std::nullopt;  // after the trace: not measured
  return at(column, time);
}

std::optional<double> LoadTrace::at(std::string_view column, double time) const {
  const auto it = std::find(columns_.begin(), columns_.end(), column);
  if (it == columns_.end()) return std::nullopt;
  const auto c = static_cast<std::size_t>(it - columns_.begin());
  if (time <= times_.front()) return cells_.front()[c];
  if (time >= times_.back()) return cells_.back()[c];
  const auto upper = std::upper_bound(times_.begin(), times_.end(), time);
  const auto i = static_cast<std::size_t>(upper - times_.begin()) - 1;
  const auto& a = cells_[i][c];
  const auto& b = cells_[i + 1][c];
  if (!a) return std::nullopt;
  if (time == times_[i]) return a;
  // Nobody was measuring in a long hole: drawing a straight line across it would invent load.
  if (times_[i + 1] - times_[i] > max_segment_seconds_) return std::nullopt;
  if (!b) return a;
  const double f = (time - times_[i]) / (times_[i + 1] - times_[i]);
  return *a + (*b - *a) * f;
}

}  // namespace dha::decide
