#include <iostream>

#include "commands.hpp"
#include "dha/abi.h"
#include "install_paths.hpp"

namespace dha::cli {

void add_version_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the program and plugin ABI versions and the plugin directory");
  cmd->callback([] {
    std::cout << "db-autoscaler " << DHA_VERSION << " (plugin ABI " << DHA_ABI_VERSION_MAJOR << "."
              << DHA_ABI_VERSION_MINOR << ")\n"
              << "plugin directory: " << default_plugin_dir() << "\n";
  });
}

}  // namespace dha::cli
