#include <iostream>

#include "commands.hpp"
#include "dha/abi.h"

namespace dha::cli {

void add_version_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the program and plugin ABI versions");
  cmd->callback([] {
    std::cout << "db-autoscaler " << DHA_VERSION << " (plugin ABI " << DHA_ABI_VERSION_MAJOR << "."
              << DHA_ABI_VERSION_MINOR << ")\n";
  });
}

}  // namespace dha::cli
