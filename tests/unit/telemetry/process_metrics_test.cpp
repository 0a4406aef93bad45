// process_* read from /proc at scrape time, the build-info gauge and the decision kind label.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>

#include "dha/telemetry/controller_metrics.hpp"
#include "dha/telemetry/process_metrics.hpp"
#include "dha/telemetry/registry.hpp"

namespace dha::telemetry {
namespace {

double value_of(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  ADD_FAILURE() << name << " not exposed:\n" << text;
  return -1;
}

TEST(ProcessMetrics, DescribeThisProcessAtEachScrape) {
  Registry registry;
  register_process_metrics(registry);
  const std::string first = registry.expose();
  EXPECT_GT(value_of(first, "process_resident_memory_bytes"), 1e6);
  EXPECT_GE(value_of(first, "process_virtual_memory_bytes"), value_of(first, "process_resident_memory_bytes"));
  EXPECT_GT(value_of(first, "process_open_fds"), 2);  // stdin, stdout, stderr at least
  EXPECT_GE(value_of(first, "process_max_fds"), value_of(first, "process_open_fds"));
  const double start = value_of(first, "process_start_time_seconds");
  EXPECT_LE(start, static_cast<double>(std::time(nullptr)) + 1);
  EXPECT_GT(start, static_cast<double>(std::time(nullptr)) - 24 * 3600) << "a test process started today";

  // Burn some CPU: the counter follows at the next scrape, and never goes down.
  const double cpu_before = value_of(first, "process_cpu_seconds_total");
  volatile double sink = 0;
  const std::clock_t until = std::clock() + CLOCKS_PER_SEC / 5;
  while (std::clock() < until) sink = sink + 1;
  const double cpu_after = value_of(registry.expose(), "process_cpu_seconds_total");
  EXPECT_GT(cpu_after, cpu_before);
  EXPECT_GE(cpu_after, cpu_before + 0.1);
}

TEST(ProcessMetrics, BuildInfoCarriesTheVersions) {
  Registry registry;
  register_build_info(registry, "0.1.0", "1.0");
  EXPECT_NE(registry.expose().find("\ndb_autoscaler_build_info{version=\"0.1.0\",abi=\"1.0\"} 1\n"), std::string::npos)
      << registry.expose();
}

TEST(DecisionKindLabel, DryRunChangesAreNotCountedAsScales) {
  struct Case {
    const char* kind;
    bool dry_run;
    const char* want;
  };
  for (const Case& c :
       {Case{"Scale", false, "Scale"}, Case{"Scale", true, "DryRunScale"}, Case{"Rollback", true, "DryRunRollback"},
        Case{"Rollback", false, "Rollback"}, Case{"NoChange", true, "NoChange"}, Case{"Freeze", true, "Freeze"}}) {
    EXPECT_EQ(decision_kind_label(c.kind, c.dry_run), c.want) << c.kind << " dry-run=" << c.dry_run;
  }
}

}  // namespace
}  // namespace dha::telemetry
