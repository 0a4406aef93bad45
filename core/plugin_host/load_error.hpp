#pragma once

#include <stdexcept>
#include <string>

namespace dha::plugin_host {

// Why a plugin was refused. The message always names the file (or "builtin:<name>") and, once
// the entry table could be read, both ABI versions.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace dha::plugin_host
