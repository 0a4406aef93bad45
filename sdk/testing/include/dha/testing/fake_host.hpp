#pragma once

// Test kit: the host side of the plugin ABI for tests, header-only.
//
//   dha::testing::FakeHost host;                       // clock starts at the wall-clock second
//   const dha_host* h = host.host_for("acmedb");       // what `create` receives
//   ... plugin logs through dha::sdk::Host ...
//   EXPECT_TRUE(host.logged("minQuorum", DHA_LOG_WARNING));
//   host.clock().advance(std::chrono::seconds(60));    // a stabilization window, in no wall time
//
// Every log line is captured with its level and the id of the plugin instance that wrote it
// (one dha_host per instance, as the real host hands out). Thread-safe, as the ABI requires.

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "dha/abi.h"

namespace dha::testing {

// Seconds since the epoch that move only when the test says so. Two of them exist, and neither
// reads the other: FakeHost::clock() is the test's own, for the `now` it passes to direct calls
// (PluginUnderTest reads no clock); Pipeline::clock() is the one the operator's pipeline runs on
// (see pipeline.hpp for what it drives and what it does not).
class ManualClock {
 public:
  ManualClock()
      : now_(std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                 .count()) {}
  explicit ManualClock(std::int64_t start_unix_seconds) : now_(start_unix_seconds) {}

  std::int64_t now() const {
    std::lock_guard lock(mu_);
    return now_;
  }
  void set(std::int64_t unix_seconds) {
    std::lock_guard lock(mu_);
    now_ = unix_seconds;
  }
  // Moves forward only: a negative step is a mistake in the test, refused rather than obeyed.
  void advance(std::chrono::seconds step) {
    if (step.count() < 0) throw std::invalid_argument("ManualClock::advance: time does not run backwards");
    std::lock_guard lock(mu_);
    now_ += step.count();
  }

 private:
  mutable std::mutex mu_;
  std::int64_t now_;
};

struct LogLine {
  dha_log_level level = DHA_LOG_INFO;
  std::string plugin_id;
  std::string message;
};

class FakeHost {
 public:
  FakeHost() = default;
  explicit FakeHost(std::int64_t start_unix_seconds) : clock_(start_unix_seconds) {}
  FakeHost(const FakeHost&) = delete;  // instances point into it
  FakeHost& operator=(const FakeHost&) = delete;

  // A dha_host for one plugin instance; lines it logs are attributed to `plugin_id`. Valid as
  // long as this FakeHost lives.
  const dha_host* host_for(std::string plugin_id) {
    std::lock_guard lock(mu_);
    auto& slot = slots_.emplace_back();
    slot.owner = this;
    slot.plugin_id = std::move(plugin_id);
    slot.host.struct_size = sizeof(dha_host);
    slot.host.abi_major = DHA_ABI_VERSION_MAJOR;
    slot.host.abi_minor = DHA_ABI_VERSION_MINOR;
    slot.host.name = "dha-testing-fake-host";
    slot.host.version = "1.0.0";
    slot.host.ctx = &slot;
    slot.host.log = &FakeHost::log_thunk;
    return &slot.host;
  }

  std::vector<LogLine> logs() const {
    std::lock_guard lock(mu_);
    return logs_;
  }
  // True when some line contains `substring` (and has `level`, when given).
  bool logged(std::string_view substring, std::optional<dha_log_level> level = std::nullopt) const {
    std::lock_guard lock(mu_);
    for (const auto& line : logs_)
      if ((!level || line.level == *level) && line.message.find(substring) != std::string::npos) return true;
    return false;
  }
  void clear_logs() {
    std::lock_guard lock(mu_);
    logs_.clear();
  }

  ManualClock& clock() { return clock_; }

 private:
  struct Slot {
    FakeHost* owner = nullptr;
    std::string plugin_id;
    dha_host host{};
  };

  static void log_thunk(void* ctx, dha_log_level level, dha_str message) {
    auto* slot = static_cast<Slot*>(ctx);
    std::string text = message.data == nullptr ? std::string() : std::string(message.data, message.size);
    std::lock_guard lock(slot->owner->mu_);
    slot->owner->logs_.push_back({level, slot->plugin_id, std::move(text)});
  }

  mutable std::mutex mu_;
  std::deque<Slot> slots_;  // a deque: handed-out pointers stay valid as it grows
  std::vector<LogLine> logs_;
  ManualClock clock_;
};

}  // namespace dha::testing
