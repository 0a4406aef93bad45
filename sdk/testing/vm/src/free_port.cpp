#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <stdexcept>

#include "dha/testing/victoria_metrics.hpp"

namespace dha::testing {
namespace {

// The kernel's range for the source ports of outgoing connections.
std::pair<int, int> ephemeral_range() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int lo = 32768, hi = 60999;
  in >> lo >> hi;
  return {lo, hi};
}

bool bindable_everywhere(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);  // free on 0.0.0.0 is free on every address
  addr.sin_port = htons(port);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

// A random port outside the ephemeral range. Asking the kernel for port 0 would hand out one
// from that range, which any outgoing connection on the machine (to an API server, to etcd)
// may take as its source port before the server under test binds it: "address in use".
uint16_t free_loopback_port() {
  const auto [lo, hi] = ephemeral_range();
  const bool below = lo - 1 - 10000 >= 5000;  // room under the range, else above it
  const int first = below ? 10000 : hi + 1, last = below ? lo - 1 : 65535;
  if (last - first < 1000) throw std::runtime_error("no port range outside ip_local_port_range to pick from");
  static thread_local std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> pick(first, last);
  for (int attempt = 0; attempt < 200; ++attempt) {
    const auto port = static_cast<uint16_t>(pick(random));
    if (bindable_everywhere(port)) return port;
  }
  throw std::runtime_error("cannot find a free loopback port");
}

}  // namespace dha::testing
