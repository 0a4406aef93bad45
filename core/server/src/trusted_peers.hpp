#pragma once

// Which peers the server trusts with its reserved connection slots: the networks it is told
// the API server calls from, or, when it is told none, the few addresses that have sent a
// request the route vouched for (a well-formed AdmissionReview). Plain C++, thread-safe.
//
// Learning is a fallback and can be taken: a client that sends a well-formed review before
// the API server does is trusted too. So it is bounded (at most `max_learned` addresses, an
// address forgotten when it has not vouched for `learned_for`), and configured networks turn
// it off.

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dha::server::detail {

// An IPv4 or IPv6 network, "10.0.0.0/24", "fd00::/64"; a bare address is a /32 or /128.
struct Network {
  std::array<std::uint8_t, 16> bytes{};
  bool v6 = false;
  unsigned prefix = 0;
  // Throws std::invalid_argument naming `text` when it is not a network.
  static Network parse(std::string_view text);
  bool contains(std::string_view address) const;
};

class TrustedPeers {
 public:
  using clock = std::chrono::steady_clock;
  TrustedPeers(std::vector<Network> networks, std::size_t max_learned, clock::duration learned_for);

  bool trusted(const std::string& address, clock::time_point now) const;
  // In one of the configured networks; learned trust does not count.
  bool in_networks(const std::string& address) const;
  // The route vouched for a request from `address`.
  void vouch(const std::string& address, clock::time_point now);
  bool learning() const { return networks_.empty() && max_learned_ > 0; }

 private:
  std::vector<Network> networks_;
  std::size_t max_learned_;
  clock::duration learned_for_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, clock::time_point> learned_;  // address -> last vouched
};

}  // namespace dha::server::detail
