#pragma once

#include <CLI/CLI.hpp>

// Each subcommand of db-autoscaler lives in its own <name>_command.cpp and registers itself
// here. A command's callback reports its result by throwing dha::cli::Exit (see exit.hpp);
// exit codes: 0 success, 1 failure, 2 bad input.
namespace dha::cli {

void add_version_command(CLI::App& app);
void add_plugin_command(CLI::App& app);
void add_decide_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_metrics_command(CLI::App& app);
void add_dha_command(CLI::App& app);

// Installed as kubectl-dha (a link to db-autoscaler), the program is the kubectl plugin
// `kubectl dha ...`: the arguments are those of `db-autoscaler dha ...`.
inline constexpr const char* kKubectlPluginName = "kubectl-dha";

}  // namespace dha::cli
