#include "connection_budget.hpp"

#include <algorithm>

namespace dha::server::detail {

bool ConnectionBudget::reserve_body(const std::string& peer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  auto& entry = peers_[peer];
  const bool fits = bytes <= limits_.max_body_bytes_in_flight - body_bytes_ &&
                    bytes <= limits_.max_body_bytes_in_flight_per_peer - entry.body_bytes;
  if (!fits) {
    forget_if_unused(peers_.find(peer));
    return false;
  }
  entry.body_bytes += bytes;
  body_bytes_ += bytes;
  return true;
}

void ConnectionBudget::release_body(const std::string& peer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  auto it = peers_.find(peer);
  if (it == peers_.end()) return;
  const std::size_t released = std::min(bytes, it->second.body_bytes);
  it->second.body_bytes -= released;
  body_bytes_ -= released;
  forget_if_unused(it);
}

std::size_t ConnectionBudget::body_bytes_in_flight() const {
  std::lock_guard lock(mutex_);
  return body_bytes_;
}

void ConnectionBudget::forget_if_unused(std::unordered_map<std::string, Peer>::iterator it) {
  if (it != peers_.end() && it->second.body_bytes == 0) peers_.erase(it);
}

}  // namespace dha::server::detail
