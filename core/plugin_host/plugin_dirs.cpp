#include "plugin_host/plugin_dirs.hpp"

#include <algorithm>
#include <system_error>

namespace dha::plugin_host {

namespace fs = std::filesystem;

namespace {

void add_so_files(const fs::path& dir, std::vector<fs::path>& out, bool one_level_down) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (entry.is_regular_file(type_ec) && entry.path().extension() == ".so") out.push_back(entry.path());
    if (one_level_down && entry.is_directory(type_ec)) add_so_files(entry.path(), out, false);
  }
}

}  // namespace

std::vector<fs::path> plugin_files(const std::string& dir, bool one_level_down) {
  std::vector<fs::path> files;
  add_so_files(dir, files, one_level_down);
  std::sort(files.begin(), files.end());
  return files;
}

std::string describe_plugin_dirs(const std::vector<std::string>& dirs, bool one_level_down) {
  if (dirs.empty()) return "no plugin directories";
  std::string out;
  for (const auto& dir : dirs) {
    if (!out.empty()) out += ", ";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      out += dir + " (does not exist)";
      continue;
    }
    std::string held;
    for (const auto& file : plugin_files(dir, one_level_down)) {
      held += (held.empty() ? "" : ", ") + file.lexically_relative(dir).string();
    }
    out += dir + (held.empty() ? " (no .so files)" : " (holds " + held + ")");
  }
  return out;
}

}  // namespace dha::plugin_host
