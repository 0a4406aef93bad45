#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

// Reading a running process from the outside: its /proc counters and Prometheus text.
namespace dha::scalebench {

struct ProcessSample {
  double cpu_seconds = 0;  // utime + stime
  double rss_mib = 0;      // VmRSS
  double peak_mib = 0;     // VmHWM
};

// Throws when the process is gone.
ProcessSample sample_process(pid_t pid);

// A child of this process whose /proc comm is `comm` (15 characters at most), or -1.
pid_t child_named(std::string_view comm);
// /proc/loadavg's first three fields: how busy the shared machine was.
std::string load_average();

// Sum of every sample of `name` whose label set contains `label_filter` ("" = all).
double metric_sum(std::string_view text, std::string_view name, std::string_view label_filter = {});
// Number of series of `name` (lines "name{...} value").
std::size_t series_count(std::string_view text, std::string_view name);
// The label sets ("{namespace=\"a\",name=\"b\"}") of those series, in text order.
std::vector<std::string> series_labels(std::string_view text, std::string_view name);

}  // namespace dha::scalebench
