#pragma once

// What one server lets its clients hold at a time: connections per peer address, and the
// request bodies being buffered, per peer and in total. One abusive client (or a few) must
// not take the connections or the memory a legitimate caller (the API server calling the
// webhook) needs. Plain C++ and thread-safe; server.cpp consults it on accept and before it
// reads a body.

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dha::server::detail {

struct BudgetLimits {
  std::size_t max_connections_per_peer = 0;
  std::size_t max_body_bytes_in_flight = 0;
  std::size_t max_body_bytes_in_flight_per_peer = 0;
};

class ConnectionBudget {
public:
  explicit ConnectionBudget(BudgetLimits limits) : limits_(limits) {}

  // Counts a new connection from `peer` (an address without port); false, counting nothing,
  // when the peer already holds its share.
  bool admit(const std::string& peer);
  void release(const std::string& peer);
  std::size_t connections_of(const std::string& peer) const;

  // Reserves room for a body of `bytes` before it is read; false, reserving nothing, when the
  // peer's or the server's budget cannot take it.
  bool reserve_body(const std::string& peer, std::size_t bytes);
  void release_body(const std::string& peer, std::size_t bytes);
  std::size_t body_bytes_in_flight() const;

private:
  struct Peer {
    std::size_t connections = 0;
    std::size_t body_bytes = 0;
  };
  void forget_if_unused(std::unordered_map<std::string, Peer>::iterator it);

  BudgetLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Peer> peers_;
  std::size_t body_bytes_ = 0;
};

} // namespace dha::server::detail
