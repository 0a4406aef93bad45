#include "plugin_host/calls_in_flight.hpp"

namespace dha::plugin_host {

CallsInFlight& CallsInFlight::instance() {
  static CallsInFlight calls;
  return calls;
}

std::uint64_t CallsInFlight::begin(const std::string& plugin_id) {
  std::lock_guard lock(mu_);
  const std::uint64_t id = ++next_;
  calls_.emplace(id, Call{plugin_id, std::chrono::steady_clock::now()});
  return id;
}

void CallsInFlight::end(std::uint64_t call) {
  std::lock_guard lock(mu_);
  calls_.erase(call);
}

std::string CallsInFlight::overdue(std::chrono::milliseconds limit) const {
  std::lock_guard lock(mu_);
  if (calls_.empty()) return "";
  const Call& oldest = calls_.begin()->second;
  const auto running = std::chrono::steady_clock::now() - oldest.since;
  if (running <= limit) return "";
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(running).count();
  return "a call into plugin " + oldest.plugin_id + " has not returned for " + std::to_string(seconds) + " s (limit " +
         std::to_string(std::chrono::duration_cast<std::chrono::seconds>(limit).count()) + " s)";
}

}  // namespace dha::plugin_host
