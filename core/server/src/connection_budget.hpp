#pragma once

// The request bodies a server's clients may have it buffer at a time, per peer address and
// in total: one abusive client (or a few) must not take the memory a legitimate caller (the
// API server calling the webhook) needs. Plain C++ and thread-safe; consulted before a body
// is read. (Connection slots are connection_slots.hpp's.)

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dha::server::detail {

struct BudgetLimits {
  std::size_t max_body_bytes_in_flight = 0;
  std::size_t max_body_bytes_in_flight_per_peer = 0;
};

class ConnectionBudget {
 public:
  explicit ConnectionBudget(BudgetLimits limits) : limits_(limits) {}

  // Reserves room for a body of `bytes` before it is read; false, reserving nothing, when the
  // peer's or the server's budget cannot take it.
  bool reserve_body(const std::string& peer, std::size_t bytes);
  void release_body(const std::string& peer, std::size_t bytes);
  std::size_t body_bytes_in_flight() const;

 private:
  struct Peer {
    std::size_t body_bytes = 0;
  };
  void forget_if_unused(std::unordered_map<std::string, Peer>::iterator it);

  BudgetLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Peer> peers_;
  std::size_t body_bytes_ = 0;
};

}  // namespace dha::server::detail
