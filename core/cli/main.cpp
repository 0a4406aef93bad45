#include <iostream>

#include "commands.hpp"
#include "exit.hpp"

int main(int argc, char** argv) {
  CLI::App app{"db-autoscaler: scales database read replicas with load, safely"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(DHA_VERSION));

  dha::cli::add_version_command(app);
  dha::cli::add_plugin_command(app);
  dha::cli::add_decide_command(app);
  dha::cli::add_simulate_command(app);
  dha::cli::add_run_command(app);
  dha::cli::add_metrics_command(app);


  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints usage errors itself; bad flags are bad input.
    const int code = app.exit(e);
    return code == 0 ? 0 : dha::cli::kExitBadInput;
  } catch (const dha::cli::Exit& e) {
    if (e.what()[0] != '\0') std::cerr << "db-autoscaler: " << e.what() << "\n";
    return e.code();
  } catch (const std::exception& e) {
    std::cerr << "db-autoscaler: " << e.what() << "\n";
    return dha::cli::kExitFailure;
  }
  return dha::cli::kExitOk;
}
