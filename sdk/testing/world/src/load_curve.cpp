#include "dha/testing/world/load_curve.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "text_file.hpp"

namespace dha::testing::world {
namespace {

std::string trim(std::string_view s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  const auto end = s.find_last_not_of(" \t\r");
  return std::string(s.substr(begin, end - begin + 1));
}

std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    cells.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return cells;
    start = comma + 1;
  }
}

std::optional<double> parse_number(const std::string& cell, const std::string& where, const std::string& column) {
  if (cell.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(cell.c_str(), &end);
  if (end != cell.c_str() + cell.size() || errno == ERANGE || !std::isfinite(value))
    throw std::invalid_argument(where + ": column " + column + ": \"" + cell + "\" is not a finite number");
  return value;
}

}  // namespace

LoadCurve LoadCurve::parse_csv(std::string_view text, const std::string& source) {
  LoadCurve curve;
  std::vector<int> column_of_cell;  // cell index -> Column, or -1 for time
  std::vector<std::string> header;
  bool have_header = false;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    const auto newline = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, newline == std::string_view::npos ? std::string_view::npos : newline - pos);
    pos = newline == std::string_view::npos ? text.size() + 1 : newline + 1;
    ++line_no;
    const std::string where = source + " line " + std::to_string(line_no);
    const std::string trimmed = trim(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    const auto cells = split_cells(line);
    if (!have_header) {
      have_header = true;
      header = cells;
      bool has_time = false, has_load = false;
      for (const auto& name : cells) {
        int column = -1;
        if (name == "time") {
          has_time = true;
        } else if (name == "ReadConnections") {
          column = kReadConnections;
          has_load = true;
        } else if (name == "ReadCPUUtilization") {
          column = kReadCpu;
        } else if (name == "lagSeconds") {
          column = kLag;
        } else if (name == "writeRate") {
          column = kWriteRate;
        } else {
          throw std::invalid_argument(where + ": unknown column \"" + name +
                                      "\" (expected time, ReadConnections, ReadCPUUtilization, lagSeconds, writeRate)");
        }
        if (std::find(column_of_cell.begin(), column_of_cell.end(), column) != column_of_cell.end())
          throw std::invalid_argument(where + ": duplicate column \"" + name + "\"");
        column_of_cell.push_back(column);
      }
      if (!has_time) throw std::invalid_argument(where + ": header has no \"time\" column");
      if (!has_load) throw std::invalid_argument(where + ": header has no \"ReadConnections\" column");
      continue;
    }
    if (cells.size() != column_of_cell.size())
      throw std::invalid_argument(where + ": has " + std::to_string(cells.size()) + " cells, header has " +
                                  std::to_string(column_of_cell.size()));
    std::vector<std::optional<double>> row(kColumnCount);
    double time = 0;
    for (size_t i = 0; i < cells.size(); ++i) {
      const int column = column_of_cell[i];
      const auto value = parse_number(cells[i], where, header[i]);
      if (column < 0) {
        if (!value || *value < 0) throw std::invalid_argument(where + ": time must be a number of seconds >= 0");
        time = *value;
      } else {
        if (value && *value < 0) throw std::invalid_argument(where + ": values must be >= 0, got \"" + cells[i] + "\"");
        row[static_cast<size_t>(column)] = value;
      }
    }
    if (!row[kReadConnections]) throw std::invalid_argument(where + ": ReadConnections is empty");
    if (!curve.times_.empty() && time <= curve.times_.back())
      throw std::invalid_argument(where + ": time must increase strictly from row to row");
    curve.times_.push_back(time);
    curve.rows_.push_back(std::move(row));
  }
  if (!have_header) throw std::invalid_argument(source + ": empty (a header row with \"time\" is required)");
  if (curve.times_.empty()) throw std::invalid_argument(source + ": has a header but no rows");
  return curve;
}

LoadCurve LoadCurve::read_file(const std::string& path) { return parse_csv(read_text_file(path, "load curve"), path); }

std::optional<double> LoadCurve::value_at(Column column, double seconds) const {
  const auto c = static_cast<size_t>(column);
  if (seconds <= times_.front()) return rows_.front()[c];
  if (seconds >= times_.back()) return rows_.back()[c];
  const auto upper = std::upper_bound(times_.begin(), times_.end(), seconds);
  const auto i = static_cast<size_t>(upper - times_.begin()) - 1;
  const auto& a = rows_[i][c];
  const auto& b = rows_[i + 1][c];
  if (!a || !b) return a;  // no line to draw: hold the earlier row's value (or its absence)
  const double f = (seconds - times_[i]) / (times_[i + 1] - times_[i]);
  return *a + (*b - *a) * f;
}

LoadPoint LoadCurve::at(double seconds) const {
  LoadPoint p;
  p.read_connections = value_at(kReadConnections, seconds).value_or(0);
  p.read_cpu_millicores = value_at(kReadCpu, seconds);
  p.lag_seconds = value_at(kLag, seconds);
  p.write_bytes_per_second = value_at(kWriteRate, seconds);
  return p;
}

}  // namespace dha::testing::world
