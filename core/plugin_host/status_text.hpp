#pragma once

#include <string>

#include "dha/abi.h"
#include "dha/sdk/error.hpp"

namespace dha::plugin_host {

// A plugin's status as messages show it: the name from abi.h ("INVALID_ARGUMENT"), not the
// number a reader would have to look up. A number outside the enum (a newer ABI's, or garbage)
// keeps its value, which is all there is to say about it.
inline std::string status_text(dha_status status) {
  const std::string name = sdk::status_name(status);
  return name == "UNKNOWN_STATUS" ? "status " + std::to_string(status) + " (not a dha_status this host knows)" : name;
}

}  // namespace dha::plugin_host
