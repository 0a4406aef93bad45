#pragma once
// What every fuzzer uses to state an invariant. A violated invariant prints what failed and
// where, then aborts, so libFuzzer saves the input as a crash-* reproducer and run.sh fails.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace dha::fuzz {

[[noreturn]] inline void invariant_failed(const char* condition, const char* file, int line, std::string_view detail) {
  std::fprintf(stderr, "\n==== invariant violated: %s\n     at %s:%d\n", condition, file, line);
  if (!detail.empty()) std::fprintf(stderr, "     %.*s\n", static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Bytes as a printable, bounded string for messages.
inline std::string printable(std::string_view s, std::size_t limit = 200) {
  std::string out;
  for (unsigned char c : s.substr(0, limit)) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > limit) out += "...";
  return out;
}

}  // namespace dha::fuzz

// FUZZ_CHECK(condition) or FUZZ_CHECK(condition, detail-string-expression).
#define FUZZ_CHECK(condition, ...)                                                                                  \
  do {                                                                                                              \
    if (!(condition)) ::dha::fuzz::invariant_failed(#condition, __FILE__, __LINE__, std::string_view{__VA_ARGS__}); \
  } while (0)
