// dha-plugin-check FILE.so — conformance checks for a db-autoscaler plugin, for a plugin
// author's CI. Each check runs in its own process; the exit code is the number of failures.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "checks.hpp"
#include "host/logging.hpp"
#include "metric_seed.hpp"
#include "plugin_config.hpp"
#include "print_samples.hpp"

namespace {

struct Result {
  std::string name;
  dha::plugin_check::CheckOutcome outcome;
};

void print_json(const std::string& file, const std::vector<Result>& results, int failed) {
  rapidjson::StringBuffer out;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(out);
  w.StartObject();
  w.Key("file");
  w.String(file);
  w.Key("checks");
  w.StartArray();
  for (const auto& r : results) {
    w.StartObject();
    w.Key("name");
    w.String(r.name);
    w.Key("passed");
    w.Bool(r.outcome.passed);
    w.Key("message");
    w.String(r.outcome.message);
    w.EndObject();
  }
  w.EndArray();
  w.Key("passed");
  w.Int(static_cast<int>(results.size()) - failed);
  w.Key("failed");
  w.Int(failed);
  w.EndObject();
  std::cout << out.GetString() << "\n";
}

// The command line, beside what the checks read (Options).
struct Flags {
  dha::plugin_check::Options options;
  std::vector<std::string> only;
  bool list = false;
  bool json = false;
  bool print_samples = false;
  int timeout_seconds = 60;
  std::vector<std::string> config_args;
  std::string plugin_config_file;
  std::string metrics_import_url;
  std::string vm_binary = "/usr/bin/victoria-metrics";

  std::chrono::seconds timeout() const { return std::chrono::seconds(timeout_seconds); }
  bool selected(const std::string& check) const {
    return only.empty() || std::find(only.begin(), only.end(), check) != only.end();
  }
};

void add_flags(CLI::App& app, Flags& f) {
  auto& o = f.options;
  app.add_option("file", o.file, "The plugin shared object (.so)");
  app.add_option("--only", f.only, "Run only this check (repeatable; see --list)");
  app.add_flag("--list", f.list, "List the checks and exit");
  app.add_flag("--json", f.json, "Print the results as JSON");
  app.add_flag("--print-samples", f.print_samples,
               "Print, as JSON, the inputs the checks send each plugin in the file (target objects, queries "
               "requests, health objects, gate and actuator requests, malformed inputs) and exit");
  app.add_option("--config", f.config_args,
                 "NAME=FILE: plugin NAME's configuration (repeatable); or JSON text given to every plugin in the file. "
                 "${metricsUrl} in a configuration becomes the metrics store's URL");
  app.add_option("--plugin-config", f.plugin_config_file,
                 "JSON file {\"<plugin>\": {configuration}, ...}, as the operator reads it");
  app.add_option("--crd", o.crd_files,
                 "The CRD of a target kind (repeatable): its /scale path is where samples hold the count");
  app.add_option(
      "--samples", o.samples_dir,
      "Directory of your own samples (.json/.yaml): target objects, checked for the count at the count path, and "
      "gate requests {\"expect\": \"hold\"|\"pass\", \"request\": {...}}");
  app.add_option(
      "--metrics-url", o.metrics_url,
      "A Prometheus-API store for the metric checks, written through <url>/api/v1/import/prometheus (default: a "
      "VictoriaMetrics the checker starts)");
  app.add_option("--metrics-import-url", f.metrics_import_url,
                 "Where the metric checks write their samples, if not at --metrics-url");
  app.add_option("--vm-binary", f.vm_binary, "The victoria-metrics binary the metric checks start");
  app.add_option("--iterations", o.iterations, "Rounds of sample calls in repeated-calls")->check(CLI::PositiveNumber);
  app.add_option("--timeout", f.timeout_seconds, "Seconds one check may take")->check(CLI::PositiveNumber);
}

// In a child, like the checks: a plugin that crashes while asked for its kinds or topology
// fails this with a message instead of taking the runner down.
int print_samples(const Flags& f) {
  const auto samples = dha::plugin_check::run_isolated(
      [&] {
        return dha::plugin_check::CheckOutcome{true, dha::plugin_check::samples_json(f.options)};
      },
      f.timeout());
  if (!samples.passed) {
    std::cerr << "dha-plugin-check: cannot print the samples: " << samples.message << "\n";
    return 1;
  }
  std::cout << samples.message;
  return 0;
}

// The metric checks read from a store with known samples in it, started (or written) once here.
// When none can be had, the metric checks say why (options.metrics_problem).
std::unique_ptr<dha::plugin_check::MetricsBackend> metrics_backend(Flags& f) {
  const auto& checks = dha::plugin_check::all_checks();
  const bool metric_checks = std::any_of(checks.begin(), checks.end(), [&](const auto& c) {
    return c.name.starts_with("metrics.") && f.selected(c.name);
  });
  auto& o = f.options;
  if (!metric_checks || !dha::plugin_check::offers_metrics(o, f.timeout())) return nullptr;
  o.metrics_run = std::to_string(::getpid()) + "-" + std::to_string(std::time(nullptr));
  try {
    auto backend = std::make_unique<dha::plugin_check::MetricsBackend>(o.metrics_url, f.metrics_import_url, f.vm_binary,
                                                                       o.metrics_run);
    o.metrics_url = backend->url();
    o.metrics_seeded_until = backend->seeded_until();
    return backend;
  } catch (const std::exception& e) {
    o.metrics_url.clear();
    o.metrics_problem = std::string(e.what()) + " (install the Debian package victoria-metrics, or give --metrics-url)";
    return nullptr;
  }
}

// Runs the selected checks, each in its own process; returns the number that failed.
int run_checks(const Flags& f) {
  std::vector<Result> results;
  int failed = 0;
  for (const auto& check : dha::plugin_check::all_checks()) {
    if (!f.selected(check.name)) continue;
    // Every check creates the plugins again: what they log at info level (a "ready" line, say)
    // is shown once, from `create`, instead of once per check. Warnings and errors always show.
    spdlog::set_level(check.name == "create" || !f.only.empty() ? spdlog::level::info : spdlog::level::warn);
    auto outcome = dha::plugin_check::run_isolated([&] { return check.run(f.options); }, f.timeout());
    if (!outcome.passed) ++failed;
    if (!f.json)
      std::cout << (outcome.passed ? "PASS " : "FAIL ") << check.name << ": " << outcome.message << "\n" << std::flush;
    results.push_back({check.name, std::move(outcome)});
  }
  if (f.json) {
    print_json(f.options.file, results, failed);
  } else {
    std::cout << (static_cast<int>(results.size()) - failed) << " passed, " << failed << " failed\n";
  }
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dha-plugin-check: conformance checks for a db-autoscaler plugin shared object"};
  Flags f;
  add_flags(app, f);
  CLI11_PARSE(app, argc, argv);
  try {
    dha::plugin_check::read_configs(f.config_args, f.plugin_config_file, f.options);
  } catch (const std::exception& e) {
    std::cerr << "dha-plugin-check: " << e.what() << "\n";
    return 2;
  }
  // The results (--json, --print-samples) own stdout; what a plugin logs through the host goes
  // to stderr, as the operator's log does. spdlog's own default logger writes to stdout.
  dha::op::install_logging(dha::op::LogFormat::Text, spdlog::level::info);

  const auto& checks = dha::plugin_check::all_checks();
  if (f.list) {
    for (const auto& c : checks) std::cout << c.name << "\t" << c.description << "\n";
    return 0;
  }
  if (f.options.file.empty()) {
    std::cerr << "dha-plugin-check: a plugin file is required (see --help)\n";
    return 2;
  }
  if (f.print_samples) return print_samples(f);
  for (const auto& name : f.only) {
    if (std::none_of(checks.begin(), checks.end(), [&](const auto& c) { return c.name == name; })) {
      std::cerr << "dha-plugin-check: unknown check \"" << name << "\" (see --list)\n";
      return 2;
    }
  }
  const auto backend = metrics_backend(f);
  return std::min(run_checks(f), 125);
}
