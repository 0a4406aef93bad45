// `db-autoscaler metrics`: runs the operator's observe stage for one DHA (or a target given by
// kind and name) and prints what it read — the "why is my DHA frozen" tool. Plugins are loaded
// from the operator's own flags and --plugin-config, the namespace's monitoring label picks the
// metric endpoint, grouped queries are asked as the operator asks them, and a utilization target
// gets the percentage the gates compare. Each query is printed once, as PromQL; the "errors"
// object says why a value is missing, and the exit code is 1 when any query failed (2 for bad
// input). With the target's replica count (read from the API server, or --replicas) it also
// prints the per-read-replica values the gates compare.
#include <memory>
#include <optional>

#include "commands.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/errors.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/object_reader.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/spec.hpp"
#include "exit.hpp"
#include "given_objects.hpp"
#include "install_paths.hpp"
#include "metrics_report.hpp"
#include "pipeline/observe.hpp"
#include "tool_plugins.hpp"

namespace dha::cli {
namespace {

struct MetricsOptions {
  std::string dha;  // read the target (and its metric types) from this DHA
  std::string kubeconfig;
  ToolPlugins plugins;
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string api_group = model::kDefaultApiGroup;
  std::vector<std::string> metric_types{"ReadConnections", "ReadCPUUtilization"};
  double timeout_seconds = 10;
  std::int32_t replicas = 0;  // the target's instances, primary included; 0: from the target
};

// The DHA's spec, from the API server; the namespace defaults to the kubeconfig's.
model::DhaSpec read_dha_spec(MetricsOptions& o, kube::Client& client) {
  const std::string what = "DatabaseHorizontalAutoscaler " + o.namespace_name + "/" + o.dha;
  rapidjson::Document dha;
  try {
    dha = client.get(kube::resources::dhas(o.namespace_name).named(o.dha));
  } catch (const kube::ApiError& e) {
    throw Exit(kExitBadInput, what + ": " + e.what());
  }
  try {
    const auto* s = kube::find_path(dha, {"spec"});
    if (s == nullptr) throw model::InputError("spec", "required");
    return model::parse_spec(*s);
  } catch (const model::InputError& e) {
    throw Exit(kExitBadInput, what + ": " + e.what());
  }
}

// Without a DHA: the target and metric types from the flags (averageValue targets: no conversion).
model::DhaSpec spec_from_flags(const MetricsOptions& o) {
  if (o.kind.empty() || o.name.empty() || o.namespace_name.empty())
    throw Exit(kExitBadInput,
               "name a DHA (db-autoscaler metrics [-n NAMESPACE] DHA), or give --kind, --namespace and --name");
  model::DhaSpec spec;
  spec.target_ref = model::TargetRef{o.api_group, o.kind, o.name};
  for (const auto& type : o.metric_types) {
    const auto parsed = model::parse_metric_type(type);
    if (!parsed) throw Exit(kExitBadInput, "--metric-type: unknown metric type " + type);
    model::MetricSpec m;
    m.type = *parsed;
    spec.metrics.push_back(m);
  }
  return spec;
}

std::unique_ptr<kube::Client> connect(MetricsOptions& o) {
  kube::ConfigFlags flags;
  flags.kubeconfig = o.kubeconfig;
  if (!o.namespace_name.empty()) flags.namespace_ = o.namespace_name;
  kube::Config config = kube::Config::load(flags);
  if (o.namespace_name.empty()) o.namespace_name = config.default_namespace;
  return std::make_unique<kube::Client>(std::move(config));
}

void run_metrics_command(MetricsOptions& o) {
  std::unique_ptr<kube::Client> client;
  model::DhaSpec spec;
  if (!o.dha.empty()) {
    client = connect(o);
    spec = read_dha_spec(o, *client);
  } else {
    spec = spec_from_flags(o);
  }
  const auto plugins = load_tool_plugins(o.plugins);
  const op::EngineBinding& engine = tool_engine(*plugins, spec.target_ref->api_group, spec.target_ref->kind, o.plugins);

  GivenObjects given;
  if (!client) {
    const kube::ResourceRef ref{engine.target.api_group, engine.target.version, engine.target.plural, o.namespace_name,
                                spec.target_ref->name};
    given.add(ref, identity_object(engine, o.namespace_name, spec.target_ref->name));
  }
  std::optional<kube::ClientReader> cluster;
  if (client) cluster.emplace(*client);
  const kube::ObjectReader& reader = cluster ? static_cast<const kube::ObjectReader&>(*cluster) : given;

  pipeline::ObserveOptions options;
  options.query_timeout_seconds = o.timeout_seconds;
  const pipeline::Observe observe(reader, *plugins, options);
  auto read = observe.target(o.namespace_name, spec);
  if (const auto* stop = std::get_if<pipeline::Stop>(&read)) {
    print_metrics_stop(spec, engine, o.namespace_name, stop->reason + ": " + stop->message);
    throw Exit(kExitFailure, "");
  }
  const auto& observed = std::get<pipeline::Observed>(read);
  const pipeline::Signals signals =
      observe.signals({o.namespace_name, o.dha, spec, engine, *observed.target.object, observed.topology});
  const MetricsReport report{spec, engine, o.namespace_name, observed.topology, signals, o.replicas};
  print_metrics_report(report);
  if (any_query_failed(signals)) throw Exit(kExitFailure, "");
}

}  // namespace

void add_metrics_command(CLI::App& app) {
  static MetricsOptions o;
  auto* cmd = app.add_subcommand("metrics", "Run the operator's observe stage for a DHA and print what it reads");
  cmd->add_option("dha", o.dha, "A DHA to read the target and metric types from (needs the API server)");
  cmd->add_option("--kubeconfig", o.kubeconfig,
                  "Kubeconfig for reading the DHA (default: $KUBECONFIG, ~/.kube/config)");
  cmd->add_option("--kind", o.kind, "Target kind, e.g. Postgres (without a DHA)");
  cmd->add_option("-n,--namespace", o.namespace_name, "Namespace of the target (or of the DHA)");
  cmd->add_option("--name", o.name, "Target name (without a DHA)");
  cmd->add_option("--metrics-url", o.plugins.metrics_url,
                  "Base URL of the metrics API, e.g. http://vmselect:8481/select/0/prometheus "
                  "(overrides the configured url or urlTemplate)");
  cmd->add_option("--plugin-config", o.plugins.plugin_config,
                  "The operator's plugin configuration file (--plugin-config of `run`)");
  cmd->add_option("--api-group", o.api_group, "Target API group")->capture_default_str();
  cmd->add_option("--plugin-dir", o.plugins.plugin_dirs, plugin_dir_help() + " (and one folder down)");
  cmd->add_option("--plugins", o.plugins.plugins,
                  "Plugins to load, comma-separated, as for `run` (default: every plugin in the directories)")
      ->delimiter(',');
  cmd->add_option("--metrics-plugin", o.plugins.metrics_plugin, "Id of the metric source plugin")
      ->capture_default_str();
  cmd->add_option("--metric-type", o.metric_types, "Driver metric types to query (repeatable)")->capture_default_str();
  cmd->add_option("--replicas", o.replicas,
                  "The target's instances, primary included (default: read from the target): adds the "
                  "per-read-replica values the gates compare")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", o.timeout_seconds, "Per-query timeout in seconds")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->callback([] { run_metrics_command(o); });
}

}  // namespace dha::cli
