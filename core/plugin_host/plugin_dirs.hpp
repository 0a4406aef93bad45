#pragma once

#include <filesystem>
#include <string>
#include <vector>

// Plugin directories as the host searches them, and as its errors describe them: a plugin that
// is not found is reported with every directory searched and what each one held, so "which
// directory did it look in, and what did it see there" needs no second run.
namespace dha::plugin_host {

// The *.so files directly in `dir` and, with `one_level_down`, in each of its subdirectories (a
// build tree keeps each plugin in its own folder), sorted. Empty when `dir` cannot be read.
std::vector<std::filesystem::path> plugin_files(const std::string& dir, bool one_level_down);

// One entry per directory, in order: "DIR (holds a.so, b/b.so)", "DIR (no .so files)" or
// "DIR (does not exist)"; "no plugin directories" when `dirs` is empty.
std::string describe_plugin_dirs(const std::vector<std::string>& dirs, bool one_level_down);

}  // namespace dha::plugin_host
