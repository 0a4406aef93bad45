#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

// Plugin calls under way, process-wide. Plugins run in-process and a call cannot be
// interrupted: one that never returns holds a reconcile worker for good. What the host can do
// is notice, and fail /healthz so that Kubernetes restarts the pod.
namespace dha::plugin_host {

class CallsInFlight {
 public:
  static CallsInFlight& instance();

  std::uint64_t begin(const std::string& plugin_id);
  void end(std::uint64_t call);
  // "" when no call has been running for longer than `limit`; otherwise the longest one:
  // which plugin, for how long.
  std::string overdue(std::chrono::milliseconds limit) const;

 private:
  struct Call {
    std::string plugin_id;
    std::chrono::steady_clock::time_point since;
  };
  mutable std::mutex mu_;
  std::uint64_t next_ = 0;
  std::map<std::uint64_t, Call> calls_;  // in start order: the first is the oldest
};

// Counts one call for as long as it lives.
class CallInFlight {
 public:
  explicit CallInFlight(const std::string& plugin_id) : id_(CallsInFlight::instance().begin(plugin_id)) {}
  ~CallInFlight() { CallsInFlight::instance().end(id_); }
  CallInFlight(const CallInFlight&) = delete;
  CallInFlight& operator=(const CallInFlight&) = delete;

 private:
  std::uint64_t id_;
};

}  // namespace dha::plugin_host
