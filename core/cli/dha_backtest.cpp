// `kubectl dha backtest NAME --from-metrics URL`: "what would this DHA have done last week?"
// The DHA and its target are read from the cluster, written where `simulate` reads them, and
// handed to the very run `simulate --from-metrics` makes, so both print the same numbers.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "dha/kube/discovery.hpp"
#include "dha/kube/errors.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/yaml_to_json.hpp"
#include "dha_cluster.hpp"
#include "exit.hpp"
#include "install_paths.hpp"
#include "operator/plugin_set.hpp"
#include "simulate_run.hpp"

namespace dha::cli {
namespace {

struct BacktestFlags {
  std::string from_metrics;
  std::string plugin_config;
  std::string since = "7d";
  std::string step;  // empty: as simulate chooses it
  std::int64_t until = 0;
  std::vector<std::string> profiles;
  bool markdown = false;
  std::vector<std::string> plugin_dirs;
  std::vector<std::string> plugins;
  std::string metrics_plugin = "metrics-vm";
};

struct TargetRef {
  std::string api_group;
  std::string kind;
  std::string name;
};

std::string string_at(const rapidjson::Value& object, const char* key) {
  return object.IsObject() && object.HasMember(key) && object[key].IsString() ? object[key].GetString() : "";
}

TargetRef target_ref_of(const rapidjson::Value& dha, const std::string& what) {
  const rapidjson::Value* ref = nullptr;
  if (dha.HasMember("spec") && dha["spec"].IsObject() && dha["spec"].HasMember("targetRef"))
    ref = &dha["spec"]["targetRef"];
  TargetRef out;
  if (ref != nullptr) out = {string_at(*ref, "apiGroup"), string_at(*ref, "kind"), string_at(*ref, "name")};
  if (out.kind.empty() || out.name.empty())
    throw Exit(kExitBadInput, what + " has no spec.targetRef with a kind and a name: nothing to backtest");
  if (out.api_group.empty()) out.api_group = model::kDefaultApiGroup;
  return out;
}

// The URL the operator's metric source is configured with, when no --from-metrics is given.
std::string metrics_url(const BacktestFlags& f) {
  if (!f.from_metrics.empty()) return f.from_metrics;
  if (f.plugin_config.empty())
    throw Exit(kExitBadInput,
               "no metrics URL: give --from-metrics URL, or --plugin-config FILE with " + f.metrics_plugin + ".url");
  std::map<std::string, std::string> configs;
  try {
    configs = op::read_plugin_config_file(f.plugin_config);
  } catch (const std::exception& e) {
    throw Exit(kExitBadInput, e.what());
  }
  const auto it = configs.find(f.metrics_plugin);
  std::string url;
  if (it != configs.end() && !it->second.empty()) {
    rapidjson::Document config;
    config.Parse(it->second.c_str(), it->second.size());
    if (!config.HasParseError()) url = string_at(config, "url");
  }
  if (url.empty())
    throw Exit(kExitBadInput, "no metrics URL: --plugin-config " + f.plugin_config + " has no " + f.metrics_plugin +
                                  ".url; give --from-metrics URL");
  return url;
}

// The target object as the API serves it, in its group's preferred version.
rapidjson::Document read_target(DhaCluster& cluster, const TargetRef& ref) {
  const std::string what = ref.kind + " " + cluster.namespace_name + "/" + ref.name + " (the DHA's target)";
  try {
    const rapidjson::Document group = cluster.client->get_path("/apis/" + ref.api_group);
    std::string version;
    if (group.IsObject() && group.HasMember("preferredVersion"))
      version = string_at(group["preferredVersion"], "groupVersion");
    if (version.empty()) throw Exit(kExitFailure, "cannot read " + what + ": API group " + ref.api_group + " has no preferred version");
    kube::Discovery discovery(*cluster.client);
    return cluster.client->get(discovery.ref_for(version, ref.kind, cluster.namespace_name, ref.name));
  } catch (const kube::ApiError& e) {
    if (e.http_status() == 404) throw Exit(kExitFailure, what + " not found");
    throw Exit(kExitFailure, "cannot read " + what + ": " + e.what());
  }
}

// A private directory for the two files `simulate` reads, removed however the run ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "kubectl-dha-backtest-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw Exit(kExitFailure, "cannot create a directory in " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string write(const std::string& name, const rapidjson::Value& object) const {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    object.Accept(w);
    const std::string file = (path_ / name).string();
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << buf.GetString() << "\n";
    if (!out) throw Exit(kExitFailure, "cannot write " + file);
    return file;
  }

 private:
  std::filesystem::path path_;
};

// The engine adapter's plugin is named for the kind it scales (Postgres: postgres.so).
std::vector<std::string> default_plugins(const BacktestFlags& f, const TargetRef& ref) {
  std::string adapter = ref.kind;
  std::transform(adapter.begin(), adapter.end(), adapter.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return {adapter, f.metrics_plugin};
}

void run_backtest(const DhaOptions& options, const BacktestFlags& f) {
  const std::string url = metrics_url(f);
  DhaCluster cluster = connect(options);
  const rapidjson::Document dha = read_dha(cluster, options.name);
  const TargetRef ref =
      target_ref_of(dha, "DatabaseHorizontalAutoscaler " + cluster.namespace_name + "/" + options.name);
  const rapidjson::Document target = read_target(cluster, ref);

  const ScratchDir scratch;
  SimulateFlags s;
  s.dha = {scratch.write(options.name + ".json", dha)};  // the file's stem names the --compare row
  s.target = scratch.write("target.json", target);
  s.from_metrics = url;
  s.kind = ref.kind;
  s.api_group = ref.api_group;
  s.namespace_name = cluster.namespace_name;
  s.name = ref.name;
  s.since = f.since;
  s.step = f.step;
  s.until = f.until;
  s.metrics_plugin = f.metrics_plugin;
  s.plugin_dirs = plugin_search_dirs(f.plugin_dirs);
  s.plugins = f.plugins.empty() ? default_plugins(f, ref) : f.plugins;
  s.profiles = f.profiles;
  s.compare = !f.profiles.empty();
  s.markdown = f.markdown;
  s.summary_only = f.profiles.empty();
  run_simulate(s);
}

}  // namespace

void add_dha_backtest_command(CLI::App& dha, std::shared_ptr<DhaOptions> options) {
  auto f = std::make_shared<BacktestFlags>();
  auto* cmd = dha.add_subcommand(
      "backtest", "What the DHA's spec would have done over its target's own history (as simulate --from-metrics)");
  cmd->add_option("name", options->name, "Name of the DatabaseHorizontalAutoscaler")->required();
  cmd->fallthrough();
  cmd->add_option("--from-metrics", f->from_metrics,
                  "the metrics URL to read the history from, e.g. http://vmselect:8481/select/0/prometheus");
  cmd->add_option("--plugin-config", f->plugin_config,
                  "without --from-metrics: the operator's plugin configuration file, whose metric source URL is used");
  cmd->add_option("--since", f->since, "how far back to read, e.g. 7d, 36h")->capture_default_str();
  cmd->add_option("--step", f->step,
                  "time between readings, e.g. 60s, 5m (default: 60s, or more when --since needs it)");
  cmd->add_option("--until", f->until, "the end of the range, unix seconds (default: now)");
  cmd->add_option("--profile", f->profiles,
                  "also compare named behaviours (default, fast, hpa, adaptive, predictive) in one table; repeatable");
  cmd->add_flag("--markdown", f->markdown, "with --profile: print the table as Markdown");
  cmd->add_option("--plugin-dir", f->plugin_dirs, plugin_dir_help());
  cmd->add_option("--plugins", f->plugins,
                  "plugins to load, comma-separated (default: the adapter named after the target's kind, and "
                  "the metric source)")
      ->delimiter(',');
  cmd->add_option("--metrics-plugin", f->metrics_plugin, "the id of the metric source plugin")->capture_default_str();
  cmd->callback([options, f] {
    run_backtest(*options, *f);
    throw Exit(kExitOk, "");
  });
}

}  // namespace dha::cli
