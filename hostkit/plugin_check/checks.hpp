#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "check_runner.hpp"

namespace dha::plugin_check {

struct Options {
  std::string file;
  std::string config;                               // --config JSON: every plugin of the file ("" = defaults)
  std::map<std::string, std::string> config_by_id;  // --config NAME=FILE and --plugin-config: one plugin each
  std::vector<std::string> crd_files;               // --crd: the kinds' CRDs (their /scale paths)
  std::string samples_dir;                          // --samples: the author's target objects and gate requests
  std::string metrics_url;           // what ${metricsUrl} in a configuration becomes; "" = no metrics backend
  std::string metrics_run;           // the label value that marks this run's samples in the backend
  int64_t metrics_seeded_until = 0;  // unix seconds of the newest sample written there
  std::string metrics_problem;       // why there is no backend, for the metric checks to say
  int iterations = 200;              // for repeated-calls
};

struct Check {
  std::string name;
  std::string description;
  std::function<CheckOutcome(const Options&)> run;
};

// Whether a plugin of the file offers dha.metrics/1 (asked in a child, as the checks are).
bool offers_metrics(const Options& options, std::chrono::seconds timeout);

// Every conformance check, in the order they run.
const std::vector<Check>& all_checks();

}  // namespace dha::plugin_check
