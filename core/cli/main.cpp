#include <cstring>
#include <iostream>
#include <vector>

#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "exit.hpp"
#include "host/logging.hpp"

int main(int argc, char** argv) {
  // stdout carries a command's result (JSON for inspect, metrics, simulate --json -): every log
  // line, the host's and a plugin's through dha_host.log, goes to stderr. spdlog's own default
  // logger writes to stdout. `run` replaces this with its --log-format and --log-level.
  dha::op::install_logging(dha::op::LogFormat::Text, spdlog::level::info);
  CLI::App app{"db-autoscaler: scales database read replicas with load, safely", "db-autoscaler"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(DHA_VERSION));

  dha::cli::add_version_command(app);
  dha::cli::add_plugin_command(app);
  dha::cli::add_decide_command(app);
  dha::cli::add_simulate_command(app);
  dha::cli::add_run_command(app);
  dha::cli::add_metrics_command(app);
  dha::cli::add_dha_command(app);

  // kubectl runs the plugin as kubectl-dha with the words after `kubectl dha`.
  std::vector<char*> args(argv, argv + argc);
  const char* program = std::strrchr(argv[0], '/');
  program = program == nullptr ? argv[0] : program + 1;
  static char dha_word[] = "dha";
  if (std::strcmp(program, dha::cli::kKubectlPluginName) == 0) {
    args.insert(args.begin() + 1, dha_word);
    app.name(dha::cli::kKubectlPluginName);
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    // CLI11 prints usage errors itself; bad flags are bad input.
    const int code = app.exit(e);
    return code == 0 ? 0 : dha::cli::kExitBadInput;
  } catch (const dha::cli::Exit& e) {
    if (e.what()[0] != '\0') std::cerr << app.get_name() << ": " << e.what() << "\n";
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return dha::cli::kExitFailure;
  }
  return dha::cli::kExitOk;
}
