#pragma once
// Gives the heap's free pages back to the system now and then (glibc's malloc_trim), so the
// operator's RSS follows what it holds, not the most it ever held.
//
// Why: glibc returns memory to the system only from the top of each arena. A first pass, a
// relist or a burst of reconciles frees memory in the middle of the heap, and that stays
// resident although nothing uses it; at tens of thousands of DHAs per replica that was tens of
// MiB (bench/scale). Elsewhere than glibc this does nothing.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace dha::op {

class HeapTrim {
 public:
  explicit HeapTrim(std::chrono::milliseconds every);
  ~HeapTrim();  // stops the thread
  HeapTrim(const HeapTrim&) = delete;
  HeapTrim& operator=(const HeapTrim&) = delete;

  // One trim now, on the calling thread: whether any memory went back to the system.
  static bool trim_now();

 private:
  void run();

  const std::chrono::milliseconds every_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace dha::op
