#pragma once

#include <string>

namespace dha::cli {

// The bundled plugins' directory of this installation: found from where the running binary
// is, so `cmake --install --prefix P`, the Debian package and the image all find their own
// plugins without a flag (P/bin/db-autoscaler loads P/lib/db-autoscaler/plugins).
std::string default_plugin_dir();

}  // namespace dha::cli
