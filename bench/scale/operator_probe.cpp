#include "operator_probe.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace dha::scalebench {

ProcessSample sample_process(pid_t pid) {
  ProcessSample s;
  const std::string base = "/proc/" + std::to_string(pid);
  std::ifstream stat(base + "/stat");
  std::string line;
  if (!std::getline(stat, line)) throw std::runtime_error("process " + std::to_string(pid) + " is gone");
  // Fields after the command name (which may hold spaces) start at field 3 (state).
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  if (fields.size() < 13) throw std::runtime_error("unexpected /proc/<pid>/stat: " + line);
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  s.cpu_seconds = (std::stod(fields[11]) + std::stod(fields[12])) / ticks;  // utime, stime (fields 14, 15)
  std::ifstream status(base + "/status");
  while (std::getline(status, line)) {
    auto kib = [&] { return std::stod(line.substr(line.find(':') + 1)) / 1024.0; };
    if (line.rfind("VmRSS:", 0) == 0) s.rss_mib = kib();
    if (line.rfind("VmHWM:", 0) == 0) s.peak_mib = kib();
  }
  return s;
}

pid_t child_named(std::string_view comm) {
  const pid_t self = getpid();
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto open = line.find('('), close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= line.size()) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    pid_t parent = 0;
    rest >> state >> parent;
    if (parent == self && line.substr(open + 1, close - open - 1) == comm) return static_cast<pid_t>(std::stol(name));
  }
  return -1;
}

namespace {

// Calls `each(labels, value)` for every sample line of `name`.
template <typename Each>
void for_samples(std::string_view text, std::string_view name, Each each) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#' || line.substr(0, name.size()) != name) continue;
    std::string_view after = line.substr(name.size());
    std::string_view labels;
    if (!after.empty() && after[0] == '{') {
      const auto close = after.rfind('}');
      if (close == std::string_view::npos) continue;
      labels = after.substr(0, close + 1);
      after = after.substr(close + 1);
    } else if (after.empty() || after[0] != ' ') {
      continue;  // a longer name with this prefix
    }
    while (!after.empty() && after[0] == ' ') after.remove_prefix(1);
    const auto space = after.find(' ');
    const std::string value(after.substr(0, space));
    try {
      each(labels, std::stod(value));
    } catch (const std::exception&) {
      // Not a number: not a sample line we understand; skip it.
    }
  }
}

}  // namespace

double metric_sum(std::string_view text, std::string_view name, std::string_view label_filter) {
  double sum = 0;
  for_samples(text, name, [&](std::string_view labels, double v) {
    if (label_filter.empty() || labels.find(label_filter) != std::string_view::npos) sum += v;
  });
  return sum;
}

std::size_t series_count(std::string_view text, std::string_view name) {
  std::size_t n = 0;
  for_samples(text, name, [&](std::string_view labels, double) { n += labels.empty() ? 0 : 1; });
  return n;
}

std::vector<std::string> series_labels(std::string_view text, std::string_view name) {
  std::vector<std::string> out;
  for_samples(text, name, [&](std::string_view labels, double) {
    if (!labels.empty()) out.emplace_back(labels);
  });
  return out;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

}  // namespace dha::scalebench
