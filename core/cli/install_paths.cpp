#include "install_paths.hpp"

#include <filesystem>
#include <system_error>

namespace dha::cli {

std::string default_plugin_dir() {
  namespace fs = std::filesystem;
  // DHA_PLUGIN_DIR_FROM_BINDIR is the plugin directory relative to the installed binary's
  // directory, computed by CMake from the install layout.
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec || self.empty()) return DHA_PLUGIN_DIR_ABSOLUTE;
  return (self.parent_path() / DHA_PLUGIN_DIR_FROM_BINDIR).lexically_normal().string();
}

}  // namespace dha::cli
