#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "dha/kube/object_reader.hpp"

// One `simulate` run as its flags say, for the commands that simulate too: `dha backtest` fills
// these from the cluster and runs exactly what `simulate --from-metrics` runs.
namespace dha::cli {

struct SimulateFlags {
  std::vector<std::string> dha;
  // Instead of --dha files: one DHA object in memory (its name names the --compare row).
  const rapidjson::Value* dha_object = nullptr;
  std::string dha_name;
  std::string load;
  std::vector<std::string> profiles;
  bool compare = false;
  bool markdown = false;
  std::string generate;
  std::uint64_t seed = 1;
  std::int32_t initial_replicas = -1;  // -1: minReplicas
  std::int64_t provision_seconds = 120;
  std::int64_t interval = 60;
  std::int32_t quorum_floor = -1;  // -1: from --target, else 1
  std::int32_t quota_max = -1;     // -1: no quota
  std::optional<std::int64_t> start_at;
  std::string target;
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> plugins;
  std::string plugin_config;  // the operator's --plugin-config file
  std::string json_out;
  std::string svg_out;
  bool summary_only = false;
  // --from-metrics: the load is the target's own history instead of --load.
  bool from_metrics = false;
  std::string metrics_url;  // the metric source's URL; "" = as --plugin-config configures it
  // Set: the target and its namespace are read from this cluster (`kubectl dha backtest`).
  const kube::ObjectReader* cluster = nullptr;
  std::string kubeconfig;  // --kubeconfig: read them from this cluster instead
  std::string kind;
  std::string api_group;
  std::string namespace_name;
  std::string name;
  std::string since = "7d";
  std::string step;  // empty: 60s, or larger when --since needs it (default_history_step)
  std::int64_t until = 0;
  std::string metrics_plugin = "metrics-vm";
  std::string save_load;
};

// Prints the timeline and summary (or the --compare table); throws Exit with the reason.
void run_simulate(const SimulateFlags& flags);

}  // namespace dha::cli
