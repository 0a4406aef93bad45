// `db-autoscaler metrics`: runs a target's queries through the operator's own query path (the
// same scoping, metric source call and combination of series) and prints what it would see — the
// "why is my DHA frozen" tool. The target is given by kind and name, or read
// from a DHA (`db-autoscaler metrics -n tenant-a my-dha` with --kubeconfig), with the metrics
// plugin configured as the operator's --plugin-config configures it. Each query is printed
// once, as PromQL; the "errors" object says why a value is missing, and the exit code is 1 when
// any query failed (2 for bad input). With the target's replica count (read from the API server,
// or --replicas) it also prints the per-read-replica values the gates compare.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include <rapidjson/prettywriter.h>

#include "commands.hpp"
#include "dha/decide/formula.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/errors.hpp"
#include "dha/kube/json.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/spec.hpp"
#include "operator/plugin_set.hpp"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "exit.hpp"
#include "install_paths.hpp"
#include "plugin_host/load_error.hpp"
#include "plugin_host/plugin_dirs.hpp"
#include "pipeline/metric_query.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "tenancy/query_template.hpp"

namespace dha::cli {
namespace {

namespace json = sdk::json;

struct MetricsOptions {
  std::string dha;          // read the target (and its metric types) from this DHA
  std::string kubeconfig;
  std::string plugin_config;
  std::string target_json;  // the target object, when read from the API server
  std::shared_ptr<kube::Client> client;  // set when a DHA is read
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string api_group = "apps.cozystack.io";
  std::string metrics_url;
  std::vector<std::string> plugin_dirs;
  std::string metrics_plugin = "metrics-vm";
  std::vector<std::string> metric_types{"ReadConnections", "ReadCPUUtilization"};
  double timeout_seconds = 10;
  std::int32_t replicas = 0;  // the target's instances, primary included; 0: from the target, if read
};

// Every *.so directly in each directory or one level below (a build tree keeps each plugin in
// its own folder), directory by directory: a file name already loaded from an earlier directory
// is skipped (first match wins, as for `run`), so a plugin author's build shadows the installed
// copy. Files that fail to load are reported on stderr and skipped: one broken third-party
// plugin should not hide the answer.
void load_plugin_dirs(plugin_host::PluginRegistry& registry, const std::vector<std::string>& dirs) {
  std::set<std::string> loaded;
  for (const auto& dir : dirs) {
    for (const auto& f : plugin_host::plugin_files(dir, true)) {
      if (!loaded.insert(f.filename().string()).second) continue;
      try {
        registry.load_file(f.string());
      } catch (const plugin_host::PluginError& e) {
        std::cerr << "db-autoscaler: skipping plugin: " << e.what() << "\n";
      }
    }
  }
}

struct Engine {
  std::unique_ptr<plugin_host::PluginInstance> instance;
  sdk::TargetKind target;
};

Engine find_engine(const plugin_host::PluginRegistry& registry, const MetricsOptions& o,
                   const std::vector<std::string>& dirs) {
  std::vector<std::string> known;
  for (const auto& info : registry.plugins()) {
    if (!info.has_capability(DHA_EXT_ENGINE)) continue;
    std::unique_ptr<plugin_host::PluginInstance> instance;
    try {
      instance = registry.create(info.id);
    } catch (const plugin_host::PluginError& e) {
      std::cerr << "db-autoscaler: skipping engine " << info.id << ": " << e.what() << "\n";
      continue;
    }
    const plugin_host::CallResult r = instance->call(instance->engine()->targets);
    if (!r.ok()) continue;
    try {
      const json::Document doc = json::parse(r.output, "targets of " + info.id);
      for (const sdk::TargetKind& t : sdk::targets_from_json(doc)) {
        if (t.kind == o.kind && t.api_group == o.api_group) return Engine{std::move(instance), t};
        known.push_back(t.kind + " (" + t.api_group + ")");
      }
    } catch (const sdk::Error& e) {
      std::cerr << "db-autoscaler: engine " << info.id << " answered targets badly: " << e.what() << "\n";
    }
  }
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw Exit(kExitBadInput, "no loaded engine adapter handles kind " + o.kind + " in group " + o.api_group +
                                " (NoAdapter); loaded adapters handle: " + (list.empty() ? "nothing" : list) +
                                "; plugin directories searched: " + plugin_host::describe_plugin_dirs(dirs, true));
}

// The adapter's topology of the target (release name, primaries, replicas). Without the object
// from an API server the command reads a minimal one with the target's identity, which is all
// the release name depends on.
sdk::Topology topology_of(const Engine& engine, const MetricsOptions& o) {
  std::string object = o.target_json;
  if (object.empty()) {
    rapidjson::StringBuffer buffer;
    json::Writer w(buffer);
    w.StartObject();
    w.Key("apiVersion");
    w.String(engine.target.api_group + "/" + engine.target.version);
    w.Key("kind");
    w.String(o.kind);
    w.Key("metadata");
    w.StartObject();
    w.Key("name");
    w.String(o.name);
    w.Key("namespace");
    w.String(o.namespace_name);
    w.EndObject();
    w.Key("spec");
    w.StartObject();
    w.EndObject();
    w.EndObject();
    object = buffer.GetString();
  }
  const plugin_host::CallResult r = engine.instance->call(engine.instance->engine()->topology, object);
  if (!r.ok()) return {};
  try {
    return sdk::Topology::from_json(json::parse(r.output, "topology"));
  } catch (const sdk::Error&) {
    return {};
  }
}

// One value of what the operator would see, or the reason there is none.
struct Reading {
  pipeline::MetricQueryResult result;
  pipeline::Aggregation how = pipeline::Aggregation::kSum;
  std::string error;
  bool failed = false;  // the query was run (or refused) and gave no value; "" queries are not failures
};

Reading run(const plugin_host::PluginInstance& metrics, const std::string& tmpl, const tenancy::TargetLabels& target,
            double timeout_seconds, pipeline::Aggregation how, const std::string& what) {
  Reading r{{}, how, "", false};
  if (tmpl.empty()) {
    r.error = "the engine adapter has no query for this signal";
    return r;
  }
  r.result = pipeline::run_metric_query(metrics, tmpl, target, std::nullopt, timeout_seconds, how, what);
  if (!r.result.value) {
    r.error = r.result.status + ": " + r.result.detail;
    r.failed = true;
  }
  return r;
}

void write_value(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w, const std::optional<double>& v) {
  if (v) {
    w.Double(*v);
  } else {
    w.Null();
  }
}

// Fills kind, name, group, namespace and metric types from the DHA, and the target object.
void read_dha(MetricsOptions& o) {
  kube::ConfigFlags flags;
  flags.kubeconfig = o.kubeconfig;
  if (!o.namespace_name.empty()) flags.namespace_ = o.namespace_name;
  kube::Config config = kube::Config::load(flags);
  if (o.namespace_name.empty()) o.namespace_name = config.default_namespace;
  o.client = std::make_shared<kube::Client>(std::move(config));
  rapidjson::Document dha;
  try {
    dha = o.client->get(kube::resources::dhas(o.namespace_name).named(o.dha));
  } catch (const kube::ApiError& e) {
    throw Exit(kExitBadInput, "DatabaseHorizontalAutoscaler " + o.namespace_name + "/" + o.dha + ": " + e.what());
  }
  model::DhaSpec spec;
  try {
    const auto* s = kube::find_path(dha, {"spec"});
    if (s == nullptr) throw model::InputError("spec", "required");
    spec = model::parse_spec(*s);
  } catch (const model::InputError& e) {
    throw Exit(kExitBadInput, "DatabaseHorizontalAutoscaler " + o.namespace_name + "/" + o.dha + ": " + e.what());
  }
  o.kind = spec.target_ref->kind;
  o.name = spec.target_ref->name;
  o.api_group = spec.target_ref->api_group;
  o.metric_types.clear();
  for (const auto& m : spec.metrics) o.metric_types.emplace_back(model::to_string(m.type));
}

// The target as the API server has it, for the adapter's topology (release name).
void read_target(MetricsOptions& o, const Engine& engine) {
  const kube::ResourceRef ref{engine.target.api_group, engine.target.version, engine.target.plural, o.namespace_name,
                              o.name};
  try {
    o.target_json = kube::to_json(o.client->get(ref));
  } catch (const kube::ApiError& e) {
    std::cerr << "db-autoscaler: " << o.kind << " " << o.namespace_name << "/" << o.name << ": " << e.what()
              << " (queries are built from its name alone)\n";
  }
}

// The metrics plugin's configuration: its section of --plugin-config, with --metrics-url for the url.
std::string metrics_plugin_config(const MetricsOptions& o) {
  rapidjson::Document config(rapidjson::kObjectType);
  if (!o.plugin_config.empty()) {
    std::map<std::string, std::string> all;
    try {
      all = op::read_plugin_config_file(o.plugin_config);
    } catch (const std::exception& e) {
      throw Exit(kExitBadInput, e.what());
    }
    if (auto it = all.find(o.metrics_plugin); it != all.end()) config.Parse(it->second.c_str());
  }
  if (!o.metrics_url.empty()) {
    config.RemoveMember("url");
    config.AddMember("url", rapidjson::Value(o.metrics_url, config.GetAllocator()), config.GetAllocator());
  }
  if (!config.HasMember("url"))
    throw Exit(kExitBadInput, "no metrics URL: give --metrics-url, or --plugin-config with a \"" + o.metrics_plugin +
                                  "\" section that has one");
  return kube::to_json(config);
}

void run_metrics_command(MetricsOptions& o) {
  if (!o.dha.empty()) {
    read_dha(o);
  } else if (o.kind.empty() || o.name.empty() || o.namespace_name.empty()) {
    throw Exit(kExitBadInput,
               "name a DHA (db-autoscaler metrics [-n NAMESPACE] DHA), or give --kind, --namespace and --name");
  }
  for (const auto& dir : o.plugin_dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) throw Exit(kExitBadInput, "plugin directory " + dir + " does not exist");
  }
  const std::vector<std::string> dirs = plugin_search_dirs(o.plugin_dirs);
  plugin_host::PluginRegistry registry;
  load_plugin_dirs(registry, dirs);
  const Engine engine = find_engine(registry, o, dirs);
  if (o.client) read_target(o, engine);
  if (registry.find(o.metrics_plugin) == nullptr) {
    throw Exit(kExitBadInput, "metrics plugin \"" + o.metrics_plugin + "\" is not loaded; plugin directories searched: " +
                                  plugin_host::describe_plugin_dirs(dirs, true));
  }
  std::unique_ptr<plugin_host::PluginInstance> metrics;
  try {
    metrics = registry.create(o.metrics_plugin, metrics_plugin_config(o));
  } catch (const plugin_host::PluginError& e) {
    throw Exit(kExitBadInput, e.what());
  }
  if (metrics->metrics() == nullptr) throw Exit(kExitBadInput, "plugin " + o.metrics_plugin + " is not a dha.metrics/1 source");

  const sdk::Topology topology = topology_of(engine, o);
  const tenancy::TargetLabels target{o.namespace_name, o.name, topology.release_name};
  const sdk::QueryRequest request{o.namespace_name, o.name, target.release, o.api_group, o.kind, o.metric_types};
  const plugin_host::CallResult qr = engine.instance->call(engine.instance->engine()->queries, request.to_json());
  if (!qr.ok()) {
    throw Exit(kExitFailure, "engine " + engine.instance->info().id + " could not build queries: " +
                                 sdk::status_name(qr.status) + ": " + qr.error);
  }
  sdk::Queries queries;
  try {
    const json::Document doc = json::parse(qr.output, "queries");
    queries = sdk::Queries::from_json(doc);
  } catch (const sdk::Error& e) {
    throw Exit(kExitFailure, "engine " + engine.instance->info().id + " answered queries badly: " + e.what());
  }

  std::map<std::string, Reading> driver;
  for (const auto& type : o.metric_types) {
    const auto it = queries.driver.find(type);
    if (it == queries.driver.end()) {
      driver[type].error = "the engine adapter does not support metric type " + type;
    } else {
      driver[type] = run(*metrics, it->second, target, o.timeout_seconds, pipeline::Aggregation::kSum, type);
    }
  }
  Reading lag = run(*metrics, queries.lag_query, target, o.timeout_seconds, pipeline::Aggregation::kMax, "lag");
  if (lag.result.value && queries.lag_unit != "seconds") {
    lag.error = "the lag query measures " + queries.lag_unit + ", which the lag brake does not use";
    lag.result.value.reset();
  }
  const Reading write =
      run(*metrics, queries.write_activity, target, o.timeout_seconds, pipeline::Aggregation::kSum, "write activity");
  const std::int32_t replicas =
      o.replicas > 0 ? o.replicas
                     : static_cast<std::int32_t>(std::clamp<std::int64_t>(topology.current_replicas.value_or(0), 0,
                                                                          INT32_MAX));

  rapidjson::StringBuffer out;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(out);
  w.StartObject();
  w.Key("target");
  w.StartObject();
  w.Key("apiGroup");
  w.String(o.api_group);
  w.Key("kind");
  w.String(o.kind);
  w.Key("namespace");
  w.String(o.namespace_name);
  w.Key("name");
  w.String(o.name);
  w.Key("engine");
  w.String(engine.instance->info().id);
  w.EndObject();
  w.Key("queries");
  w.StartObject();
  w.Key("driver");
  w.StartObject();
  for (const auto& [type, r] : driver) {
    w.Key(type);
    w.String(r.result.query);
  }
  w.EndObject();
  w.Key("lag");
  w.String(lag.result.query);
  w.Key("writeActivity");
  w.String(write.result.query);
  w.EndObject();
  // How the series of each query were combined into its value, and how many there were.
  w.Key("aggregation");
  w.StartObject();
  auto aggregation = [&w](const std::string& key, const Reading& r) {
    w.Key(key);
    w.String(std::string(pipeline::to_string(r.how)) + " of " + std::to_string(r.result.series) + " series");
  };
  for (const auto& [type, r] : driver) aggregation("driver." + type, r);
  aggregation("lag", lag);
  aggregation("writeActivity", write);
  w.EndObject();
  w.Key("values");
  w.StartObject();
  w.Key("driver");
  w.StartObject();
  for (const auto& [type, r] : driver) {
    w.Key(type);
    write_value(w, r.result.value);
  }
  w.EndObject();
  w.Key("lagSeconds");
  write_value(w, lag.result.value);
  w.Key("writeRate");
  write_value(w, write.result.value);
  w.EndObject();
  if (replicas > 0) {
    // What the gates compare with each metric's target: the value per read-serving replica, as
    // the operator's metric evaluation divides it.
    const std::int32_t readers =
        decide::read_replicas(replicas, static_cast<std::int32_t>(std::clamp<std::int64_t>(topology.primary_count, 0,
                                                                                           INT32_MAX)));
    w.Key("perReadReplica");
    w.StartObject();
    w.Key("replicas");
    w.Int(replicas);
    w.Key("readReplicas");
    w.Int(readers);
    w.Key("driver");
    w.StartObject();
    for (const auto& [type, r] : driver) {
      w.Key(type);
      write_value(w, r.result.value ? std::optional<double>(*r.result.value / readers) : std::nullopt);
    }
    w.EndObject();
    w.EndObject();
  }
  w.Key("errors");
  w.StartObject();
  for (const auto& [type, r] : driver) {
    if (r.error.empty()) continue;
    w.Key("driver." + type);
    w.String(r.error);
  }
  if (!lag.error.empty()) {
    w.Key("lag");
    w.String(lag.error);
  }
  if (!write.error.empty()) {
    w.Key("writeActivity");
    w.String(write.error);
  }
  w.EndObject();
  w.EndObject();
  std::cout << out.GetString() << "\n";
  bool failed = lag.failed || write.failed;
  for (const auto& [type, r] : driver) failed = failed || r.failed;
  if (failed) throw Exit(kExitFailure, "");
}

}  // namespace

void add_metrics_command(CLI::App& app) {
  static MetricsOptions o;
  auto* cmd = app.add_subcommand("metrics", "Run a target's metric queries and print what the operator would see");
  cmd->add_option("dha", o.dha, "A DHA to read the target and metric types from (needs the API server)");
  cmd->add_option("--kubeconfig", o.kubeconfig,
                  "Kubeconfig for reading the DHA (default: $KUBECONFIG, ~/.kube/config)");
  cmd->add_option("--kind", o.kind, "Target kind, e.g. Postgres (without a DHA)");
  cmd->add_option("-n,--namespace", o.namespace_name, "Namespace of the target (or of the DHA)");
  cmd->add_option("--name", o.name, "Target name (without a DHA)");
  cmd->add_option("--metrics-url", o.metrics_url,
                  "Base URL of the metrics API, e.g. http://vmselect:8481/select/0/prometheus "
                  "(overrides the config's)");
  cmd->add_option("--plugin-config", o.plugin_config,
                  "The operator's plugin configuration file: the metrics plugin's section (url, token, CA) is used");
  cmd->add_option("--api-group", o.api_group, "Target API group")->capture_default_str();
  cmd->add_option("--plugin-dir", o.plugin_dirs, plugin_dir_help() + " (every .so in each, and one folder down)");
  cmd->add_option("--metrics-plugin", o.metrics_plugin, "Id of the metric source plugin")->capture_default_str();
  cmd->add_option("--metric-type", o.metric_types, "Driver metric types to query (repeatable)")->capture_default_str();
  cmd->add_option("--replicas", o.replicas,
                  "The target's instances, primary included (default: read from the target): adds the "
                  "per-read-replica values the gates compare")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", o.timeout_seconds, "Per-query timeout in seconds")->capture_default_str()->check(
      CLI::PositiveNumber);
  cmd->callback([] { run_metrics_command(o); });
}

}  // namespace dha::cli
