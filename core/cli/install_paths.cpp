#include "install_paths.hpp"

#include <algorithm>
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

std::vector<std::string> plugin_search_dirs(const std::vector<std::string>& flag_dirs) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs = flag_dirs;
  const std::string installed = default_plugin_dir();
  const bool named = std::any_of(dirs.begin(), dirs.end(), [&](const std::string& dir) {
    std::error_code ec;
    return fs::path(dir).lexically_normal() == fs::path(installed).lexically_normal() ||
           fs::equivalent(dir, installed, ec);
  });
  if (!named) dirs.push_back(installed);
  return dirs;
}

std::string plugin_dir_help() {
  return "Directory of plugin .so files; repeatable, searched in order (first match wins), then this "
         "installation's " +
         default_plugin_dir();
}

}  // namespace dha::cli
