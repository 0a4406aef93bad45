#pragma once

// A load curve for the world simulator: the CSV format of examples/load/*.csv.
//
//   time,ReadConnections,lagSeconds,writeRate
//   0,80
//   60,350,0.5,200
//
// `time` is seconds from the start of the curve and must increase strictly. Values between rows
// are interpolated linearly; after the last row the last values hold. ReadConnections (total
// active read connections over all read replicas) is required; ReadCPUUtilization (millicores
// over all read replicas), lagSeconds and writeRate (bytes/s on the primary) are optional. An
// empty cell means "no value" for that row. Lines starting with # are comments. Bad input throws
// std::invalid_argument naming the source and the line.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::testing::world {

// What the exporters report at one moment, summed over the read replicas.
struct LoadPoint {
  double read_connections = 0;
  std::optional<double> read_cpu_millicores;
  std::optional<double> lag_seconds;
  std::optional<double> write_bytes_per_second;
};

class LoadCurve {
 public:
  static LoadCurve parse_csv(std::string_view text, const std::string& source);
  static LoadCurve read_file(const std::string& path);

  // The load `seconds` after the start of the curve (clamped to the first/last row).
  LoadPoint at(double seconds) const;
  // Time of the last row: the curve has nothing new to say after it.
  double duration_seconds() const { return times_.back(); }

 private:
  enum Column { kReadConnections, kReadCpu, kLag, kWriteRate, kColumnCount };
  std::optional<double> value_at(Column column, double seconds) const;

  std::vector<double> times_;
  // rows_[i][column]; a column absent from the header is nullopt in every row.
  std::vector<std::vector<std::optional<double>>> rows_;
};

}  // namespace dha::testing::world
