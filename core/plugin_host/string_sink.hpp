#pragma once

#include <string>

#include "dha/abi.h"

namespace dha::plugin_host {

// A dha_sink that appends into a std::string the host owns. Valid while the string lives.
inline dha_sink string_sink(std::string& target) {
  return dha_sink{&target, [](void* ctx, const char* data, size_t size) {
                    if (data != nullptr && size > 0) static_cast<std::string*>(ctx)->append(data, size);
                  }};
}

inline dha_str as_dha_str(const std::string& s) { return dha_str{s.data(), s.size()}; }

}  // namespace dha::plugin_host
