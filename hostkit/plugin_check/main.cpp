// dha-plugin-check FILE.so — conformance checks for a db-autoscaler plugin, for a plugin
// author's CI. Each check runs in its own process; the exit code is the number of failures.
#include <algorithm>
#include <iostream>
#include <set>

#include <CLI/CLI.hpp>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <spdlog/spdlog.h>

#include "checks.hpp"
#include "print_samples.hpp"
#include "host/logging.hpp"

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"dha-plugin-check: conformance checks for a db-autoscaler plugin shared object"};
  dha::plugin_check::Options options;
  std::vector<std::string> only;
  bool list = false;
  bool json = false;
  bool print_samples = false;
  int timeout_seconds = 60;
  app.add_option("file", options.file, "The plugin shared object (.so)");
  app.add_option("--only", only, "Run only this check (repeatable; see --list)");
  app.add_flag("--list", list, "List the checks and exit");
  app.add_flag("--json", json, "Print the results as JSON");
  app.add_flag("--print-samples", print_samples,
               "Print, as JSON, the inputs the checks send each plugin in the file (target objects, queries "
               "requests, health objects, gate and actuator requests, malformed inputs) and exit");
  app.add_option("--config", options.config, "JSON configuration given to every plugin in the file");
  app.add_option("--iterations", options.iterations, "Rounds of sample calls in repeated-calls")->check(CLI::PositiveNumber);
  app.add_option("--timeout", timeout_seconds, "Seconds one check may take")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  // The results (--json, --print-samples) own stdout; what a plugin logs through the host goes
  // to stderr, as the operator's log does. spdlog's own default logger writes to stdout.
  dha::op::install_logging(dha::op::LogFormat::Text, spdlog::level::info);

  const auto& checks = dha::plugin_check::all_checks();
  if (list) {
    for (const auto& c : checks) std::cout << c.name << "\t" << c.description << "\n";
    return 0;
  }
  if (options.file.empty()) {
    std::cerr << "dha-plugin-check: a plugin file is required (see --help)\n";
    return 2;
  }
  if (print_samples) {
    // In a child, like the checks: a plugin that crashes while asked for its kinds or topology
    // fails this with a message instead of taking the runner down.
    const auto samples = dha::plugin_check::run_isolated(
        [&] { return dha::plugin_check::CheckOutcome{true, dha::plugin_check::samples_json(options)}; },
        std::chrono::seconds(timeout_seconds));
    if (!samples.passed) {
      std::cerr << "dha-plugin-check: cannot print the samples: " << samples.message << "\n";
      return 1;
    }
    std::cout << samples.message;
    return 0;
  }
  for (const auto& name : only) {
    if (std::none_of(checks.begin(), checks.end(), [&](const auto& c) { return c.name == name; })) {
      std::cerr << "dha-plugin-check: unknown check \"" << name << "\" (see --list)\n";
      return 2;
    }
  }

  std::vector<Result> results;
  int failed = 0;
  for (const auto& check : checks) {
    if (!only.empty() && std::find(only.begin(), only.end(), check.name) == only.end()) continue;
    auto outcome = dha::plugin_check::run_isolated([&] { return check.run(options); },
                                                   std::chrono::seconds(timeout_seconds));
    if (!outcome.passed) ++failed;
    if (!json) std::cout << (outcome.passed ? "PASS " : "FAIL ") << check.name << ": " << outcome.message << "\n" << std::flush;
    results.push_back({check.name, std::move(outcome)});
  }
  if (json) {
    print_json(options.file, results, failed);
  } else {
    std::cout << (static_cast<int>(results.size()) - failed) << " passed, " << failed << " failed\n";
  }
  return std::min(failed, 125);
}
