#pragma once

#include <string>
#include <string_view>

#include "dha/abi.h"

namespace dha::sdk {

// Writes bytes into a caller-owned sink; a sink without `append` swallows them (the ABI lets a
// caller pass an empty error sink when it does not care for the message).
inline void write_to_sink(const dha_sink& sink, std::string_view bytes) noexcept {
  if (sink.append != nullptr && !bytes.empty()) sink.append(sink.ctx, bytes.data(), bytes.size());
}

// A dha_sink backed by a std::string the caller owns; for hosts and tests calling a plugin.
class StringSink {
 public:
  dha_sink sink() noexcept { return dha_sink{&text_, &StringSink::append}; }
  const std::string& str() const noexcept { return text_; }
  std::string take() noexcept { return std::move(text_); }
  void clear() noexcept { text_.clear(); }

 private:
  static void append(void* ctx, const char* data, size_t size) {
    if (data != nullptr && size > 0) static_cast<std::string*>(ctx)->append(data, size);
  }
  std::string text_;
};

inline dha_str to_dha_str(std::string_view s) noexcept { return dha_str{s.data(), s.size()}; }
inline std::string_view to_string_view(dha_str s) noexcept {
  return s.data == nullptr ? std::string_view{} : std::string_view{s.data, s.size};
}

}  // namespace dha::sdk
