// HeapTrim: memory freed in the middle of the heap goes back to the system (RSS falls), which
// glibc's free() alone does not do while something above it is still allocated.
#include "operator/heap_trim.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace dha::op {
namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// 64 MiB in 4 KiB blocks (below the mmap threshold: from the heap), touched, then all freed
// but the last, which keeps the freed range from being the heap's top.
struct FreedMiddle {
  FreedMiddle() {
    for (int i = 0; i < 16384; ++i) {
      blocks.push_back(new char[4096]);
      for (int b = 0; b < 4096; b += 512) blocks.back()[b] = static_cast<char>(i);
    }
    top = new char[4096];
    top[0] = 1;
    for (char* b : blocks) delete[] b;
    blocks.clear();
  }
  ~FreedMiddle() { delete[] top; }
  std::vector<char*> blocks;
  char* top = nullptr;
};

bool glibc_heap() {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  return true;
#else
  return false;
#endif
}

TEST(HeapTrim, FreedMemoryInTheMiddleOfTheHeapLeavesRss) {
  if (!glibc_heap()) GTEST_SKIP() << "malloc_trim is glibc's; sanitizers bring their own allocator";
  FreedMiddle freed;
  const long before = rss_kib();
  EXPECT_TRUE(HeapTrim::trim_now());
  const long after = rss_kib();
  EXPECT_LT(after, before - 32 * 1024) << "RSS " << before << " KiB before the trim, " << after << " after";
}

TEST(HeapTrim, ItsThreadTrimsOnItsPeriodAndStopsAtOnce) {
  if (!glibc_heap()) GTEST_SKIP() << "malloc_trim is glibc's; sanitizers bring their own allocator";
  FreedMiddle freed;
  const long before = rss_kib();
  const auto started = std::chrono::steady_clock::now();
  {
    HeapTrim trim(std::chrono::milliseconds(50));
    while (rss_kib() > before - 32 * 1024 && std::chrono::steady_clock::now() - started < std::chrono::seconds(5))
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_LT(rss_kib(), before - 32 * 1024) << "no trim within 5 s at a 50 ms period";
  }
  const auto stop_started = std::chrono::steady_clock::now();
  { HeapTrim idle(std::chrono::hours(1)); }
  EXPECT_LT(std::chrono::steady_clock::now() - stop_started, std::chrono::seconds(1))
      << "the destructor waited out the period";
}

}  // namespace
}  // namespace dha::op
