#pragma once

#include <string>
#include <vector>

namespace dha::cli {

// The bundled plugins' directory of this installation: found from where the running binary
// is, so `cmake --install --prefix P`, the Debian package and the image all find their own
// plugins without a flag (P/bin/db-autoscaler loads P/lib/db-autoscaler/plugins).
std::string default_plugin_dir();

// Where a command looks for plugins: the --plugin-dir directories in order, then this
// installation's plugin directory (unless already named), so `--plugin-dir build` adds a plugin
// author's build to the bundled plugins (metrics-vm, the engines) rather than replacing them.
std::vector<std::string> plugin_search_dirs(const std::vector<std::string>& flag_dirs);

// The --help text of --plugin-dir, saying the above.
std::string plugin_dir_help();

}  // namespace dha::cli
