#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace dha::plugin_check {

struct CheckOutcome {
  bool passed = false;
  std::string message;  // why it failed, or a short note when it passed
};

// Runs `check` in a forked child so that a plugin that crashes, aborts or hangs fails its own
// check instead of taking the runner down. The child reports through a pipe; the parent waits
// up to `timeout`, then kills it.
CheckOutcome run_isolated(const std::function<CheckOutcome()>& check, std::chrono::seconds timeout);

}  // namespace dha::plugin_check
