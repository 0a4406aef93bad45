#include "operator/heap_trim.hpp"

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace dha::op {

HeapTrim::HeapTrim(std::chrono::milliseconds every) : every_(every), thread_([this] { run(); }) {}

HeapTrim::~HeapTrim() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool HeapTrim::trim_now() {
#ifdef __GLIBC__
  return malloc_trim(0) != 0;
#else
  return false;
#endif
}

void HeapTrim::run() {
  std::unique_lock lock(mu_);
  while (!wake_.wait_for(lock, every_, [this] { return stop_; })) {
    lock.unlock();
    trim_now();
    lock.lock();
  }
}

}  // namespace dha::op
