#include "trusted_peers.hpp"

#include <arpa/inet.h>

#include <cstring>
#include <iterator>
#include <stdexcept>

namespace dha::server::detail {

namespace {

// The address as 16 bytes (an IPv4 one in the first 4); false when it is not an address.
bool address_bytes(std::string_view text, std::array<std::uint8_t, 16>& out, bool& v6) {
  const std::string s(text);
  out.fill(0);
  if (::inet_pton(AF_INET, s.c_str(), out.data()) == 1) {
    v6 = false;
    return true;
  }
  if (::inet_pton(AF_INET6, s.c_str(), out.data()) == 1) {
    v6 = true;
    return true;
  }
  return false;
}

}  // namespace

Network Network::parse(std::string_view text) {
  Network network;
  const auto slash = text.find('/');
  const std::string_view address = text.substr(0, slash);
  if (!address_bytes(address, network.bytes, network.v6))
    throw std::invalid_argument("\"" + std::string(text) + "\" is not an IP network (want e.g. 10.0.0.0/24)");
  const unsigned width = network.v6 ? 128 : 32;
  network.prefix = width;
  if (slash != std::string_view::npos) {
    const std::string_view bits = text.substr(slash + 1);
    unsigned prefix = 0;
    bool ok = !bits.empty() && bits.size() <= 3;
    for (char c : bits) {
      ok = ok && c >= '0' && c <= '9';
      prefix = prefix * 10 + static_cast<unsigned>(c - '0');
    }
    if (!ok || prefix > width)
      throw std::invalid_argument("\"" + std::string(text) + "\": the prefix length must be 0 to " +
                                  std::to_string(width));
    network.prefix = prefix;
  }
  return network;
}

bool Network::contains(std::string_view text) const {
  std::array<std::uint8_t, 16> address{};
  bool address_v6 = false;
  if (!address_bytes(text, address, address_v6)) return false;
  if (address_v6 && !v6) {
    // An IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
    static constexpr std::uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::memcmp(address.data(), mapped, 12) != 0) return false;
    std::memmove(address.data(), address.data() + 12, 4);
    std::memset(address.data() + 4, 0, 12);
    address_v6 = false;
  }
  if (address_v6 != v6) return false;
  const unsigned whole = prefix / 8, rest = prefix % 8;
  if (std::memcmp(address.data(), bytes.data(), whole) != 0) return false;
  if (rest == 0) return true;
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rest));
  return (address[whole] & mask) == (bytes[whole] & mask);
}

TrustedPeers::TrustedPeers(std::vector<Network> networks, std::size_t max_learned, clock::duration learned_for)
    : networks_(std::move(networks)), max_learned_(max_learned), learned_for_(learned_for) {}

bool TrustedPeers::in_networks(const std::string& address) const {
  for (const auto& network : networks_)
    if (network.contains(address)) return true;
  return false;
}

bool TrustedPeers::trusted(const std::string& address, clock::time_point now) const {
  if (!networks_.empty()) return in_networks(address);
  std::lock_guard lock(mutex_);
  auto it = learned_.find(address);
  return it != learned_.end() && now - it->second < learned_for_;
}

void TrustedPeers::vouch(const std::string& address, clock::time_point now) {
  if (!learning()) return;
  std::lock_guard lock(mutex_);
  if (auto it = learned_.find(address); it != learned_.end()) {
    it->second = now;
    return;
  }
  for (auto it = learned_.begin(); it != learned_.end();) {
    it = now - it->second >= learned_for_ ? learned_.erase(it) : std::next(it);
  }
  // Full: the addresses that vouched first keep their places until they go quiet, so a
  // client vouching from ever new addresses cannot push the API server out.
  if (learned_.size() < max_learned_) learned_.emplace(address, now);
}

}  // namespace dha::server::detail
