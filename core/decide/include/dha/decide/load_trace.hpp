#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::decide {

// A load curve for the simulator: a CSV with a header row. Columns: `time` (seconds, strictly
// increasing), one column per metric type holding the TOTAL read load across the database
// (ReadConnections: connections; ReadCPUUtilization: millicores), optional `lagSeconds`,
// `writeRate` and `readyEstimateSeconds` (an engine adapter's ready-time estimate). An empty cell
// is "no reading" (a metric outage, or no lag/write signal), and so is one that is not a reading
// by the operator's rule (model/reading.hpp: negative, NaN, infinite or implausible): a hole, not
// a refused trace; a column without a single reading is refused. In a regularly sampled trace, a
// hole between two rows longer than kOutageGapFactor times the usual spacing is no reading too:
// nothing is drawn across it.
inline constexpr double kOutageGapFactor = 5;

class LoadTrace {
 public:
  // Throws model::InputError naming "<source> line N" and the column on bad input.
  static LoadTrace parse_csv(std::string_view text, const std::string& source = "load");
  // A trace from columns and rows already read (the metric history): the same rules as parse_csv,
  // without the text. Throws model::InputError naming `source`.
  static LoadTrace from_rows(std::vector<std::string> columns, std::vector<double> times,
                             std::vector<std::vector<std::optional<double>>> cells, const std::string& source);

  bool has_column(std::string_view name) const;
  // Linear interpolation between the rows around `time`; held flat before the first and after
  // the last row. nullopt if the cell starting the segment is empty, inside a hole (see above),
  // or the column is absent. At a row's own time its cell is returned as it is.
  std::optional<double> at(std::string_view column, double time) const;
  // at(column, time) as it was known at `now`: nullopt unless `time` is before `now` and every row
  // the value is drawn from is too (a forecast must never read the trace's future).
  std::optional<double> known_at(std::string_view column, double time, double now) const;

  // The whole seconds the trace covers (a fractional first or last time rounds inward).
  std::int64_t start() const { return static_cast<std::int64_t>(std::ceil(times_.front())); }
  std::int64_t end() const { return static_cast<std::int64_t>(std::floor(times_.back())); }
  const std::vector<std::string>& columns() const { return columns_; }
  // The trace as parse_csv reads it back (holes as empty cells).
  std::string to_csv() const;

 private:
  void finish(const std::string& source);  // the checks on the whole trace; the hole length

  std::vector<std::string> columns_;  // without "time"
  std::vector<double> times_;
  std::vector<std::vector<std::optional<double>>> cells_;                 // [row][column]
  double max_segment_seconds_ = std::numeric_limits<double>::infinity();  // longer ones are holes
};

}  // namespace dha::decide
