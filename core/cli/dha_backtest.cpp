// `kubectl dha backtest NAME`: "what would this DHA have done last week?" The DHA is read from
// the cluster and handed, in memory, to the very run `simulate --from-metrics` makes, which reads
// its target and the target's namespace from the cluster through the operator's observe stage,
// with the plugins the operator's flags and --plugin-config load.
#include "dha/kube/object_reader.hpp"
#include "dha/model/spec.hpp"
#include "dha_cluster.hpp"
#include "exit.hpp"
#include "install_paths.hpp"
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

void run_backtest(const DhaOptions& options, const BacktestFlags& f) {
  DhaCluster cluster = connect(options);
  const rapidjson::Document dha = read_dha(cluster, options.name);
  const TargetRef ref =
      target_ref_of(dha, "DatabaseHorizontalAutoscaler " + cluster.namespace_name + "/" + options.name);
  const kube::ClientReader reader(*cluster.client);

  SimulateFlags s;
  s.dha_object = &dha;
  s.dha_name = options.name;  // names the --compare row, as a file's stem does
  s.cluster = &reader;
  s.from_metrics = true;
  s.metrics_url = f.from_metrics;
  s.plugin_config = f.plugin_config;
  s.kind = ref.kind;
  s.api_group = ref.api_group;
  s.namespace_name = cluster.namespace_name;
  s.name = ref.name;
  s.since = f.since;
  s.step = f.step;
  s.until = f.until;
  s.metrics_plugin = f.metrics_plugin;
  s.plugin_dirs = f.plugin_dirs;
  s.plugins = f.plugins;
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
                  "the metrics URL to read the history from, e.g. http://vmselect:8481/select/0/prometheus "
                  "(default: the metric source as --plugin-config configures it)");
  cmd->add_option("--plugin-config", f->plugin_config,
                  "the operator's plugin configuration file (--plugin-config of run)");
  cmd->add_option("--since", f->since, "how far back to read, e.g. 7d, 36h")->capture_default_str();
  cmd->add_option("--step", f->step,
                  "time between readings, e.g. 60s, 5m (default: 60s, or more when --since needs it)");
  cmd->add_option("--until", f->until, "the end of the range, unix seconds (default: now)");
  cmd->add_option("--profile", f->profiles,
                  "also compare named behaviours (default, fast, hpa, adaptive, predictive) in one table; repeatable");
  cmd->add_flag("--markdown", f->markdown, "with --profile: print the table as Markdown");
  cmd->add_option("--plugin-dir", f->plugin_dirs, plugin_dir_help());
  cmd->add_option("--plugins", f->plugins,
                  "plugins to load, comma-separated, as for run (default: every plugin in the directories)")
      ->delimiter(',');
  cmd->add_option("--metrics-plugin", f->metrics_plugin, "the id of the metric source plugin")->capture_default_str();
  cmd->callback([options, f] {
    run_backtest(*options, *f);
    throw Exit(kExitOk, "");
  });
}

}  // namespace dha::cli
