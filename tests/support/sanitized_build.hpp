// Whether this test binary was built with AddressSanitizer (the asan-ubsan preset). A sanitized
// build runs several times slower and maps shadow memory, so a test's latency, CPU-time and RSS
// bounds describe the release build only; under a sanitizer they are printed, not asserted,
// while every correctness check still runs.
#pragma once

namespace dha::testsupport {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace dha::testsupport
