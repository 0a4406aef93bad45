#include "dha/telemetry/process_metrics.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace dha::telemetry {
namespace {

struct ProcStat {
  double cpu_seconds = 0;
  double start_since_boot_seconds = 0;
  double virtual_bytes = 0;
  double resident_bytes = 0;
  bool ok = false;
};

// Fields of /proc/self/stat after the parenthesized command name (which may hold spaces).
ProcStat read_stat() {
  ProcStat s;
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return s;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return s;
  std::istringstream fields(line.substr(close + 2));
  std::string f[24];
  for (auto& v : f)
    if (!(fields >> v)) return s;
  // After the name: state(3) ... utime(14) stime(15) ... starttime(22) vsize(23) rss(24).
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  s.cpu_seconds = (std::stod(f[11]) + std::stod(f[12])) / ticks;
  s.start_since_boot_seconds = std::stod(f[19]) / ticks;
  s.virtual_bytes = std::stod(f[20]);
  s.resident_bytes = std::stod(f[21]) * page;
  s.ok = true;
  return s;
}

double boot_time_seconds() {
  std::ifstream in("/proc/stat");
  std::string key;
  double value = 0;
  while (in >> key) {
    if (key == "btime" && in >> value) return value;
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  const std::filesystem::directory_iterator end;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != end; it.increment(ec)) ++n;
  return n > 0 ? n - 1 : 0;  // the iterator's own descriptor
}

}  // namespace

void register_process_metrics(Registry& r) {
  auto cpu = r.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.").with({});
  auto rss = r.gauge("process_resident_memory_bytes", "Resident memory size in bytes.").with({});
  auto vsz = r.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.").with({});
  auto start = r.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.").with({});
  auto fds = r.gauge("process_open_fds", "Number of open file descriptors.").with({});
  auto max_fds = r.gauge("process_max_fds", "Maximum number of open file descriptors.").with({});
  const double boot = boot_time_seconds();
  r.add_collector([=] {
    const ProcStat s = read_stat();
    if (s.ok) {
      // A counter only moves forward: add what was used since the last scrape.
      cpu->inc(s.cpu_seconds - cpu->value());
      rss->set(s.resident_bytes);
      vsz->set(s.virtual_bytes);
      start->set(boot + s.start_since_boot_seconds);
    }
    fds->set(open_fds());
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0) max_fds->set(static_cast<double>(limit.rlim_cur));
  });
}

void register_build_info(Registry& r, const std::string& version, const std::string& abi) {
  r.gauge("db_autoscaler_build_info", "A metric with a constant '1' value labeled by version and plugin ABI.",
          {"version", "abi"})
      .with({version, abi})
      ->set(1);
}

}  // namespace dha::telemetry
