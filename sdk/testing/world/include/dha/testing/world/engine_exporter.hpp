#pragma once

// The exporters of one simulated application, as an engine description lists them: every scrape
// renders each described series for each selected instance pod in Prometheus exposition format
// (with millisecond timestamps), ready for VictoriaMetrics' /api/v1/import/prometheus.
//
// The read load of the curve is spread evenly over the AVAILABLE read replicas; with none
// available it lands on the primary. Pods still provisioning only have the series described with
// `pods: all` (constants, like kube-state-metrics' pod labels). A removed pod's load gauges
// (readConnections, lagSeconds) are sent once more as 0, so a metric store's lookback does not
// keep counting them, and its counters are forgotten.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dha/testing/world/engine_description.hpp"
#include "dha/testing/world/load_curve.hpp"
#include "dha/testing/world/simulated_database.hpp"

namespace dha::testing::world {

class EngineExporter {
 public:
  EngineExporter(EngineDescription engine, std::string namespace_name, std::string app_name);

  // One scrape: `elapsed_seconds` since the previous scrape advances the counters.
  std::string scrape(const std::vector<SimulatedDatabase::Instance>& instances, const LoadPoint& load,
                     const std::vector<std::string>& removed_pods, double elapsed_seconds, int64_t timestamp_ms);

 private:
  void add_sample(std::string& out, const SeriesDescription& series, const std::string& pod, bool primary, double value,
                  int64_t timestamp_ms) const;

  EngineDescription engine_;
  std::string namespace_;
  std::string app_;
  double written_bytes_total_ = 0;
  std::map<std::string, double> cpu_seconds_total_;  // per pod
};

// Escapes a label value for the exposition format (backslash, double quote, newline).
std::string escape_label_value(const std::string& value);

}  // namespace dha::testing::world
