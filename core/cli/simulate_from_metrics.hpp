#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "simulate_target.hpp"

// `simulate --from-metrics`: a database's own history as a load trace, read the way the operator
// reads it — the engine adapter's queries, rendered and scope-checked by the host's tenancy code,
// run by the metric source plugin as range queries, and added up over the read replicas as the
// observe stage adds up an instant vector.
namespace dha::cli {

struct HistoryRequest {
  std::string url;             // the metric source's base URL
  std::string metrics_plugin;  // the id the URL is configured for
  std::string kind;
  std::string api_group;       // "" = the first adapter handling `kind`
  std::string namespace_name;
  std::string name;
  std::string target_file;     // "" = a minimal object with the identity above
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> plugins;
  std::vector<std::string> metric_types;  // driver columns to read
  std::int64_t since_seconds = 7 * 86400;
  std::int64_t step_seconds = 60;
  std::int64_t until = 0;      // unix seconds; 0 = now
  double timeout_seconds = 60;
};

struct History {
  std::string csv;                  // a load trace: time from 0 at `start`, one row per step
  std::int64_t start = 0;           // unix seconds of time 0
  std::int64_t rows = 0;
  TargetShape shape;                // from the adapter's topology of the target
  std::vector<std::string> notes;   // signals left out, and why
};

// Throws Exit(2) for bad input (unknown kind, a refused query, no history for a driver metric)
// and Exit(1) when the metric source fails.
History read_history(const HistoryRequest& request);

// "7d", "12h", "90m", "60s" or plain seconds; throws Exit(2) naming `flag` otherwise.
std::int64_t parse_duration_seconds(const std::string& text, const std::string& flag);

}  // namespace dha::cli
