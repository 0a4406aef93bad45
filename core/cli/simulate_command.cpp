#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "crd_defaults.hpp"
#include "dha/ext/metrics.h"
#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/object_reader.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"
#include "dha/model/yaml_to_json.hpp"
#include "dha/simulate/load_generator.hpp"
#include "dha/simulate/simulation.hpp"
#include "dha/simulate/simulation_profiles.hpp"
#include "exit.hpp"
#include "install_paths.hpp"
#include "pipeline/first_observation.hpp"
#include "simulate_compare.hpp"
#include "simulate_from_metrics.hpp"
#include "simulate_run.hpp"
#include "simulate_target.hpp"

// `db-autoscaler simulate`: replays a load trace through decide() over simulated time.
namespace dha::cli {
namespace {

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Exit(kExitBadInput, fmt::format("{}: cannot read {}", what, path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw Exit(kExitFailure, "cannot write " + path);
}

// A whole DHA object (its `spec` is used) or a bare spec, in YAML or JSON; with a profile, its
// behaviour replaces the file's. Then the CRD's defaults, as the API server applies them when the
// manifest is created: what is simulated is what the cluster would run.
model::DhaSpec spec_of(rapidjson::Document doc, const std::string& what, const std::string& profile) {
  if (!doc.IsObject()) throw model::InputError(what, "must be a DHA object or its spec");
  rapidjson::Value* spec = doc.HasMember("spec") ? &doc["spec"] : &doc;
  if (!profile.empty()) decide::apply_profile(*spec, profile, doc.GetAllocator());
  if (spec->IsObject()) apply_crd_defaults(*spec, doc.GetAllocator());
  return model::parse_spec(*spec, model::SpecParseOptions{.require_target_ref = false});
}

model::DhaSpec load_spec(const std::string& path, const std::string& profile = {}) {
  return spec_of(model::yaml_to_json(read_file(path, "--dha"), path), path, profile);
}

std::string fmt_load(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : "-"; }

void print_timeline(const decide::SimulationResult& r) {
  std::cout << fmt::format("{:>8} {:>7} {:>5} {:>7} {:>4}  {:<9} {:<19} {}\n", "time", "current", "avail", "desired",
                           "raw", "kind", "reason", "load");
  for (const auto& s : r.steps) {
    std::string load;
    for (const auto& [type, v] : s.load) load += (load.empty() ? "" : " ") + type + "=" + fmt_load(v);
    if (s.lag_seconds) load += " lag=" + fmt_load(s.lag_seconds);
    if (s.forecast) load += fmt::format(" forecast={:.2f}/{}s", *s.forecast, s.forecast_horizon);
    std::cout << fmt::format("{:>8} {:>7} {:>5} {:>7} {:>4}  {:<9} {:<19} {}\n", s.time, s.current_replicas,
                             s.available_replicas, s.desired_replicas, s.raw_desired_replicas, model::to_string(s.kind),
                             s.reason, load);
  }
}

void print_summary(const decide::SimulationSummary& s) {
  std::cout << "summary:\n";
  std::cout << fmt::format("  simulated seconds:      {}\n", s.duration_seconds);
  std::cout << fmt::format("  replica-seconds:        {} (average {:.2f} replicas)\n", s.replica_seconds,
                           s.duration_seconds > 0 ? static_cast<double>(s.replica_seconds) / s.duration_seconds : 0.0);
  // The ratio counts what the policy left unserved as spent (decide::bound_ratio): say so when it did.
  std::cout << fmt::format("  clairvoyant bound:      {} replica-seconds ({:.2f}x", s.bound_replica_seconds,
                           decide::bound_ratio(s));
  if (s.shortfall_replica_seconds > 0)
    std::cout << fmt::format(", counting {} replica-seconds short of the need as spent", s.shortfall_replica_seconds);
  std::cout << ")";
  if (s.bound_unknown_seconds > 0)
    std::cout << fmt::format("; unknown for {} s without a reading, left out of both", s.bound_unknown_seconds);
  std::cout << "\n";
  std::cout << fmt::format(
      "  seconds above target:   {} (unavoidable {}, provisioning {}, reaction {}, held {}, other {})\n",
      s.seconds_above_target, s.overload_unavoidable, s.overload_provisioning, s.overload_reaction, s.overload_held,
      s.overload_other);
  std::cout << fmt::format("  scale actions:          {} (rollbacks {})\n", s.scale_actions, s.rollbacks);
  std::cout << fmt::format("  replicas range:         {}..{}\n", s.min_replicas, s.max_replicas);
  std::cout << "  freezes by reason:";
  if (s.freezes_by_reason.empty()) std::cout << "      none";
  std::cout << "\n";
  for (const auto& [reason, n] : s.freezes_by_reason) std::cout << fmt::format("    {:<22} {}\n", reason, n);
}

decide::SimulationParams params_for(const SimulateFlags& f, const model::DhaSpec& spec,
                                    const std::optional<TargetShape>& shape) {
  decide::SimulationParams params;
  params.initial_replicas = f.initial_replicas < 0 ? spec.min_replicas : f.initial_replicas;
  params.provision_seconds = f.provision_seconds;
  params.interval_seconds = f.interval;
  // The operator takes the floor and the primaries from the engine adapter: so does the simulator
  // when it is given the target object. An explicit --quorum-floor still wins.
  if (shape) {
    params.quorum_floor = shape->quorum_floor;
    params.primary_count = shape->primary_count;
  }
  if (f.quorum_floor >= 0) params.quorum_floor = f.quorum_floor;
  if (f.quota_max >= 0) params.quota_max_replicas = f.quota_max;
  params.start_at = f.start_at;
  // A simulated DHA is a new one: its first state is the one the operator's pipeline builds.
  params.initial_state = [spec](std::int32_t replicas, std::int64_t now) {
    return pipeline::state_for_decide(model::DhaStatus{}, spec, replicas, now);
  };
  return params;
}

void run_generate(const SimulateFlags& f) {
  const auto family = decide::parse_load_family(f.generate);
  if (!family)
    throw Exit(kExitBadInput, fmt::format("--generate: unknown family \"{}\" ({})", f.generate,
                                          fmt::join(decide::load_family_names(), ", ")));
  std::cout << decide::generate_load_csv(*family, f.seed);
}

struct NamedSpec {
  std::string name;
  model::DhaSpec spec;
};

// Every --dha with every --profile (or as written when none is given), named for the table.
std::vector<NamedSpec> load_specs(const SimulateFlags& f) {
  std::vector<NamedSpec> out;
  const std::vector<std::string> profiles = f.profiles.empty() ? std::vector<std::string>{""} : f.profiles;
  if (f.dha_object != nullptr) {
    for (const auto& profile : profiles) {
      rapidjson::Document copy;
      copy.CopyFrom(*f.dha_object, copy.GetAllocator());
      out.push_back({profile.empty() ? f.dha_name : profile, spec_of(std::move(copy), f.dha_name, profile)});
    }
  }
  for (const auto& path : f.dha) {
    const std::string stem = std::filesystem::path(path).stem().string();
    for (const auto& profile : profiles) {
      std::string name = profile.empty() ? stem : profile;
      if (f.dha.size() > 1 && !profile.empty()) name = stem + "/" + profile;
      out.push_back({name, load_spec(path, profile)});
    }
  }
  return out;
}

// One row per spec: what each would have cost and how long users waited.
void run_compare(const SimulateFlags& f, const std::vector<NamedSpec>& specs, const decide::LoadTrace& load,
                 const std::optional<TargetShape>& shape) {
  std::vector<CompareRow> rows;
  for (const auto& s : specs)
    rows.push_back({s.name, decide::simulate(s.spec, load, params_for(f, s.spec, shape)).summary});
  std::cout << (f.markdown ? compare_markdown(rows) : compare_table(rows));
}

// Without --step: one minute, or the smallest whole number of minutes that keeps the range within
// what one range query may ask for (a two-week backtest reads two-minute steps).
std::int64_t default_history_step(std::int64_t since_seconds) {
  constexpr std::int64_t kMinute = 60;
  const std::int64_t max_intervals = DHA_METRICS_MAX_RANGE_POINTS - 1;
  const std::int64_t minutes = (since_seconds + kMinute * max_intervals - 1) / (kMinute * max_intervals);
  return kMinute * std::max<std::int64_t>(minutes, 1);
}

ToolPlugins tool_plugins(const SimulateFlags& f) {
  ToolPlugins p;
  p.plugin_dirs = f.plugin_dirs;
  p.plugins = f.plugins;
  p.plugin_config = f.plugin_config;
  p.metrics_url = f.metrics_url;
  p.metrics_plugin = f.metrics_plugin;
  return p;
}

HistoryRequest history_request(const SimulateFlags& f, const std::vector<NamedSpec>& specs) {
  if (f.kind.empty() || f.namespace_name.empty() || f.name.empty())
    throw Exit(kExitBadInput, "--from-metrics needs --kind, -n NAMESPACE and the target's NAME");
  HistoryRequest r;
  r.plugins = tool_plugins(f);
  r.kind = f.kind;
  r.api_group = f.api_group;
  r.namespace_name = f.namespace_name;
  r.name = f.name;
  r.target_file = f.target;
  r.cluster = f.cluster;
  // Each metric type once, as the first spec naming it compares it.
  for (const auto& s : specs)
    for (const auto& m : s.spec.metrics)
      if (std::none_of(r.metrics.begin(), r.metrics.end(), [&](const auto& other) { return other.type == m.type; }))
        r.metrics.push_back(m);
  r.since_seconds = parse_duration_seconds(f.since, "--since");
  r.step_seconds = f.step.empty() ? default_history_step(r.since_seconds) : parse_duration_seconds(f.step, "--step");
  r.until = f.until;
  return r;
}

std::string source_of(const SimulateFlags& f) {
  return f.metrics_url.empty() ? "the configured metric source" : f.metrics_url;
}

// What was read, before the simulation: the range and every signal left out.
void print_history(const SimulateFlags& f, const History& h, std::int64_t step_seconds, std::ostream& out) {
  out << fmt::format("history: {} {}/{} from {}, {} steps of {}s from unix time {} (trace time 0)\n", f.kind,
                     f.namespace_name, f.name, source_of(f), h.rows, step_seconds, h.start);
  if (h.monitoring_namespace) out << "  monitoring namespace: " << *h.monitoring_namespace << "\n";
  for (const auto& note : h.notes) out << "  " << note << "\n";
}

}  // namespace

void run_simulate(const SimulateFlags& f) {
  try {
    if (!f.generate.empty()) return run_generate(f);
    if (f.dha.empty() && f.dha_object == nullptr)
      throw Exit(kExitBadInput, "--dha is required (a DHA file to simulate)");
    if (f.load.empty() == !f.from_metrics)
      throw Exit(kExitBadInput, "give one of --load (a load trace CSV) and --from-metrics (a metrics URL)");
    if (!f.compare && (f.dha.size() > 1 || f.profiles.size() > 1))
      throw Exit(kExitBadInput, "several --dha or --profile values need --compare");
    if (f.compare && (!f.json_out.empty() || !f.svg_out.empty() || f.summary_only))
      throw Exit(kExitBadInput, "--compare prints one table; --json, --svg and --summary-only are for one simulation");
    const std::vector<NamedSpec> specs = load_specs(f);
    std::optional<TargetShape> shape;
    std::optional<decide::LoadTrace> history_trace;
    if (f.from_metrics) {
      HistoryRequest request = history_request(f, specs);
      std::unique_ptr<kube::Client> client;
      std::optional<kube::ClientReader> cluster;
      if (!f.kubeconfig.empty() && request.cluster == nullptr) {
        kube::ConfigFlags flags;
        flags.kubeconfig = f.kubeconfig;
        client = std::make_unique<kube::Client>(kube::Config::load(flags));
        request.cluster = &cluster.emplace(*client);
      }
      History history = read_history(request);
      // With `--json -` stdout is the JSON document alone; what was read is said on stderr.
      print_history(f, history, request.step_seconds, f.json_out == "-" ? std::cerr : std::cout);
      if (!f.save_load.empty()) write_file(f.save_load, history.trace.to_csv());
      shape = history.shape;
      history_trace = std::move(history.trace);
    } else if (!f.target.empty()) {
      shape = target_shape(f.target, tool_plugins(f));
    }
    const decide::LoadTrace load =
        history_trace ? std::move(*history_trace) : decide::LoadTrace::parse_csv(read_file(f.load, "--load"), f.load);
    if (f.compare) return run_compare(f, specs, load, shape);
    const model::DhaSpec& spec = specs.front().spec;
    const decide::SimulationParams params = params_for(f, spec, shape);
    const auto result = decide::simulate(spec, load, params);

    const bool json_on_stdout = f.json_out == "-";
    if (!json_on_stdout) {
      if (!f.summary_only) print_timeline(result);
      print_summary(result.summary);
    }
    if (!f.json_out.empty()) {
      rapidjson::Document doc;
      static_cast<rapidjson::Value&>(doc) = decide::simulation_to_json(result, doc.GetAllocator());
      rapidjson::StringBuffer buf;
      rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
      w.SetIndent(' ', 2);
      doc.Accept(w);
      const std::string json = std::string(buf.GetString(), buf.GetSize()) + "\n";
      if (json_on_stdout) {
        std::cout << json;
      } else {
        write_file(f.json_out, json);
      }
    }
    if (!f.svg_out.empty()) write_file(f.svg_out, decide::render_svg(result, spec, load, params));
  } catch (const model::InputError& e) {
    throw Exit(kExitBadInput, e.what());
  }
}

void add_simulate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate", "Replay a load trace through the decision core over simulated time");
  auto f = std::make_shared<SimulateFlags>();
  cmd->add_option("--dha", f->dha, "DHA (YAML or JSON: the object or its spec); repeatable with --compare");
  cmd->add_option("--load", f->load,
                  "load trace CSV: time, <metric type>..., optional lagSeconds, writeRate, readyEstimateSeconds");
  auto* from_metrics =
      cmd->add_option("--from-metrics", f->metrics_url,
                      "instead of --load: replay the target's own history, read as the operator reads it, from this "
                      "metrics URL (e.g. http://vmselect:8481/select/0/prometheus) or, without one, from the metric "
                      "source --plugin-config configures; needs --kind, -n and NAME")
          ->expected(0, 1);
  cmd->add_option("--kubeconfig", f->kubeconfig,
                  "with --from-metrics: read the target and its namespace's monitoring label from this cluster, as "
                  "the operator does (default: no cluster; the target is --target or its identity alone)");
  cmd->add_option("--plugin-config", f->plugin_config,
                  "with --from-metrics or --target: the operator's plugin configuration file (--plugin-config of run)");
  cmd->add_option("NAME", f->name, "with --from-metrics: the target's name");
  cmd->add_option("--kind", f->kind, "with --from-metrics: the target's kind, e.g. Postgres");
  cmd->add_option("--api-group", f->api_group,
                  "with --from-metrics: the target's API group (default: apps.cozystack.io, as a targetRef's)");
  cmd->add_option("-n,--namespace", f->namespace_name, "with --from-metrics: the target's namespace");
  cmd->add_option("--since", f->since, "with --from-metrics: how far back to read, e.g. 7d, 36h")
      ->capture_default_str();
  cmd->add_option("--step", f->step,
                  "with --from-metrics: time between readings, e.g. 60s, 5m (default: 60s, or the smallest whole "
                  "minutes that keep --since within one range query)");
  cmd->add_option("--until", f->until, "with --from-metrics: the end of the range, unix seconds (default: now)");
  cmd->add_option("--metrics-plugin", f->metrics_plugin, "with --from-metrics: the id of the metric source plugin")
      ->capture_default_str();
  cmd->add_option("--save-load", f->save_load, "with --from-metrics: also write the history as a load trace CSV");
  cmd->add_option("--profile", f->profiles,
                  "replace the DHA's behaviour by a named one: default (what a new DHA gets), windowed, fast, hpa, "
                  "adaptive, predictive, forecast-only; "
                  "repeatable with --compare");
  cmd->add_flag("--compare", f->compare, "simulate every --dha and --profile on the trace and print one table");
  cmd->add_flag("--markdown", f->markdown, "with --compare: print the table as Markdown");
  cmd->add_option("--generate", f->generate,
                  "print a synthetic load trace CSV instead: diurnal-day, flash-crowd, ramp-lag, noisy-plateau, "
                  "diurnal-week, weekly-holiday");
  cmd->add_option("--seed", f->seed, "random seed for --generate")->default_val(1);
  cmd->add_option("--initial-replicas", f->initial_replicas, "replicas at the start (default: minReplicas)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--provision-seconds", f->provision_seconds, "seconds until a new replica is available")
      ->default_val(120)
      ->check(CLI::Range(INT64_C(0), INT64_C(86400) * 30));
  cmd->add_option("--interval", f->interval, "reconcile period in seconds")
      ->default_val(60)
      ->check(CLI::Range(INT64_C(1), INT64_C(86400)));
  cmd->add_option("--quorum-floor", f->quorum_floor, "the engine's quorum floor (default: from --target, else 1)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--target", f->target,
                  "the target object (YAML or JSON): its engine adapter gives the quorum floor and primaries; with "
                  "--from-metrics, without it a bare object with --kind, -n and NAME (the adapter's defaults)");
  cmd->add_option("--plugin-dir", f->plugin_dirs, "with --target or --from-metrics: " + plugin_dir_help());
  cmd->add_option("--plugins", f->plugins, "with --target or --from-metrics: plugins to load, comma-separated")
      ->delimiter(',');
  cmd->add_option("--start-at", f->start_at,
                  "decide from this trace time (seconds) on; earlier rows are history for a forecast");
  cmd->add_option("--quota-max", f->quota_max, "tenant quota ceiling in replicas (default: none)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--json", f->json_out,
                  "write the timeline and summary as JSON to this file ('-': to stdout, instead of the table)");
  cmd->add_option("--svg", f->svg_out, "draw load, capacity and replicas over time to this SVG file");
  cmd->add_flag("--summary-only", f->summary_only, "print only the summary");
  cmd->callback([f, from_metrics] {
    f->from_metrics = from_metrics->count() > 0;
    run_simulate(*f);
  });
}

}  // namespace dha::cli
