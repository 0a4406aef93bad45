#pragma once
// A loopback TCP relay in front of the API server, so a test can make the server "restart" as a
// client sees it — every open connection (watch streams included) cut, new connections refused
// for a while, then the same server (same data, address and CA) reachable again — without
// relying on the embedded server being restartable in place.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dha::kube::test {

class TcpProxy {
 public:
  explicit TcpProxy(std::uint16_t upstream_port) : upstream_port_(upstream_port) { open_listener(0); }
  ~TcpProxy() {
    down();
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
  }
  TcpProxy(const TcpProxy&) = delete;
  TcpProxy& operator=(const TcpProxy&) = delete;

  std::uint16_t port() const { return port_; }

  // The "server went away": close the listener and every relayed connection.
  void down() {
    stop_accepting_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    std::vector<std::thread> relays;
    {
      std::lock_guard lock(mu_);
      for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
      relays.swap(relays_);
    }
    for (auto& t : relays) t.join();
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
  }
  // The "server is back" on the same port.
  void up() { open_listener(port_); }

 private:
  void open_listener(std::uint16_t port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(port);
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0)
      throw std::runtime_error("proxy: cannot listen on 127.0.0.1:" + std::to_string(port));
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    stop_accepting_ = false;
    acceptor_ = std::thread([this] { accept_loop(); });
  }

  void accept_loop() {
    while (!stop_accepting_ && !stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int client = ::accept(listen_fd_, nullptr, nullptr);
      if (client < 0) continue;
      const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      addr.sin_port = htons(upstream_port_);
      if (::connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(client);
        ::close(upstream);
        continue;
      }
      std::lock_guard lock(mu_);
      open_fds_.push_back(client);
      open_fds_.push_back(upstream);
      relays_.emplace_back([this, client, upstream] { relay(client, upstream); });
    }
  }

  void relay(int a, int b) {
    char buf[16384];
    for (;;) {
      pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (::poll(p, 2, 100) < 0) break;
      bool closed = false;
      for (int i = 0; i < 2 && !closed; ++i) {
        if ((p[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
        const ssize_t n = ::read(p[i].fd, buf, sizeof buf);
        if (n <= 0 || ::send(p[1 - i].fd, buf, std::size_t(n), MSG_NOSIGNAL) != n) closed = true;
      }
      if (closed) break;
    }
    std::lock_guard lock(mu_);
    std::erase(open_fds_, a);
    std::erase(open_fds_, b);
    ::close(a);
    ::close(b);
  }

  const std::uint16_t upstream_port_;
  std::uint16_t port_ = 0;
  int listen_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::atomic<bool> stop_accepting_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<int> open_fds_;
  std::vector<std::thread> relays_;
};

}  // namespace dha::kube::test
