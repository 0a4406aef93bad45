#include <fmt/format.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "dha/decide/simulation.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/json_read.hpp"
#include "dha/model/yaml_to_json.hpp"
#include "exit.hpp"

// `db-autoscaler simulate`: replays a load trace through decide() over simulated time.
namespace dha::cli {
namespace {

struct SimulateFlags {
  std::string dha;
  std::string load;
  std::int32_t initial_replicas = -1;  // -1: minReplicas
  std::int64_t provision_seconds = 120;
  std::int64_t interval = 60;
  std::int32_t quorum_floor = 1;
  std::int32_t quota_max = -1;  // -1: no quota
  std::string json_out;
  std::string svg_out;
  bool summary_only = false;
};

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

// A whole DHA object (its `spec` is used) or a bare spec, in YAML or JSON.
model::DhaSpec load_spec(const std::string& path) {
  const std::string text = read_file(path, "--dha");
  rapidjson::Document doc = model::yaml_to_json(text, path);
  if (!doc.IsObject()) throw model::InputError(path, "must be a DHA object or its spec");
  const rapidjson::Value* spec = model::json::find(doc, "spec");
  return model::parse_spec(spec != nullptr ? *spec : doc, model::SpecParseOptions{.require_target_ref = false});
}

std::string fmt_load(const std::optional<double>& v) { return v ? fmt::format("{:.1f}", *v) : "-"; }

void print_timeline(const decide::SimulationResult& r) {
  std::cout << fmt::format("{:>8} {:>7} {:>5} {:>7} {:>4}  {:<9} {:<19} {}\n", "time", "current", "avail", "desired",
                           "raw", "kind", "reason", "load");
  for (const auto& s : r.steps) {
    std::string load;
    for (const auto& [type, v] : s.load) load += (load.empty() ? "" : " ") + type + "=" + fmt_load(v);
    if (s.lag_seconds) load += " lag=" + fmt_load(s.lag_seconds);
    std::cout << fmt::format("{:>8} {:>7} {:>5} {:>7} {:>4}  {:<9} {:<19} {}\n", s.time, s.current_replicas,
                             s.available_replicas, s.desired_replicas, s.raw_desired_replicas,
                             model::to_string(s.kind), s.reason, load);
  }
}

void print_summary(const decide::SimulationSummary& s) {
  std::cout << "summary:\n";
  std::cout << fmt::format("  simulated seconds:      {}\n", s.duration_seconds);
  std::cout << fmt::format("  replica-seconds:        {} (average {:.2f} replicas)\n", s.replica_seconds,
                           s.duration_seconds > 0 ? static_cast<double>(s.replica_seconds) / s.duration_seconds : 0.0);
  std::cout << fmt::format("  seconds above target:   {}\n", s.seconds_above_target);
  std::cout << fmt::format("  scale actions:          {} (rollbacks {})\n", s.scale_actions, s.rollbacks);
  std::cout << fmt::format("  replicas range:         {}..{}\n", s.min_replicas, s.max_replicas);
  std::cout << "  freezes by reason:";
  if (s.freezes_by_reason.empty()) std::cout << "      none";
  std::cout << "\n";
  for (const auto& [reason, n] : s.freezes_by_reason) std::cout << fmt::format("    {:<22} {}\n", reason, n);
}

void run_simulate(const SimulateFlags& f) {
  try {
    const model::DhaSpec spec = load_spec(f.dha);
    const auto load = decide::LoadTrace::parse_csv(read_file(f.load, "--load"), f.load);
    decide::SimulationParams params;
    params.initial_replicas = f.initial_replicas < 0 ? spec.min_replicas : f.initial_replicas;
    params.provision_seconds = f.provision_seconds;
    params.interval_seconds = f.interval;
    params.quorum_floor = f.quorum_floor;
    if (f.quota_max >= 0) params.quota_max_replicas = f.quota_max;
    const auto result = decide::simulate(spec, load, params);

    if (!f.summary_only) print_timeline(result);
    print_summary(result.summary);
    if (!f.json_out.empty()) {
      rapidjson::Document doc;
      static_cast<rapidjson::Value&>(doc) = decide::simulation_to_json(result, doc.GetAllocator());
      rapidjson::StringBuffer buf;
      rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
      w.SetIndent(' ', 2);
      doc.Accept(w);
      write_file(f.json_out, std::string(buf.GetString(), buf.GetSize()) + "\n");
    }
    if (!f.svg_out.empty()) write_file(f.svg_out, decide::render_svg(result, spec, load, params));
  } catch (const model::InputError& e) {
    throw Exit(kExitBadInput, e.what());
  }
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("simulate", "Replay a load trace through the decision core over simulated time");
  auto f = std::make_shared<SimulateFlags>();
  cmd->add_option("--dha", f->dha, "DHA (YAML or JSON: the object or its spec)")->required();
  cmd->add_option("--load", f->load, "load trace CSV: time, <metric type>..., optional lagSeconds, writeRate")
      ->required();
  cmd->add_option("--initial-replicas", f->initial_replicas, "replicas at the start (default: minReplicas)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--provision-seconds", f->provision_seconds, "seconds until a new replica is available")
      ->default_val(120)
      ->check(CLI::Range(INT64_C(0), INT64_C(86400) * 30));
  cmd->add_option("--interval", f->interval, "reconcile period in seconds")
      ->default_val(60)
      ->check(CLI::Range(INT64_C(1), INT64_C(86400)));
  cmd->add_option("--quorum-floor", f->quorum_floor, "the engine's quorum floor (default 1)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--quota-max", f->quota_max, "tenant quota ceiling in replicas (default: none)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--json", f->json_out, "write the timeline and summary as JSON to this file");
  cmd->add_option("--svg", f->svg_out, "draw load, capacity and replicas over time to this SVG file");
  cmd->add_flag("--summary-only", f->summary_only, "print only the summary");
  cmd->callback([f] { run_simulate(*f); });
}

}  // namespace dha::cli
