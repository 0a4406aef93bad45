#pragma once
// A loopback TCP relay in front of the API server, for two faults a client cannot tell from the
// real thing:
//  - down()/up(): the server "restarts" as a client sees it — every open connection (watch
//    streams included) cut, new connections refused for a while, then the same server (same
//    data, address and CA) reachable again.
//  - hold_from()/release(): a hop that stops forwarding, as an overloaded load balancer or a
//    partition does. From the first request that starts with a given text, nothing more a
//    client sends reaches the server (on any connection, new ones included) until release().
//    Then each held connection is forwarded if its client is still waiting, and dropped unsent
//    if the client gave up and closed it meanwhile — what a proxy that buffers whole requests
//    (nginx's default) does. So "the server never saw a request" means the client abandoned it
//    in time; bytes a real network already carried further cannot be recalled by anyone.
// The match is on the start of what a client wrote in one go, which for HTTP/1.1 without TLS is
// the request line ("PATCH /apis/..."); an empty text matches the next bytes of any kind.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace dha::testsupport {

class TcpProxy {
 public:
  explicit TcpProxy(std::uint16_t upstream_port) : upstream_port_(upstream_port) { open_listener(0); }
  ~TcpProxy() {
    release();
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

  // Arms the hold: the first request starting with one of `request_starts` and everything
  // after it.
  void hold_from(std::vector<std::string> request_starts) {
    std::lock_guard lock(mu_);
    hold_prefixes_ = std::move(request_starts);
    holding_ = false;
    armed_ = true;
  }
  // Has a request matched since hold_from()?
  bool holding() const { return holding_.load(); }
  // Ends the hold: held requests whose client still waits go on, the others are dropped.
  void release() {
    std::lock_guard lock(mu_);
    armed_ = false;
    holding_ = false;
    ++release_generation_;
  }
  int held_connections() const { return held_.load(); }
  int dropped_connections() const { return dropped_.load(); }  // their client had gone: never sent
  int forwarded_connections() const { return forwarded_.load(); }

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

  // Does this chunk from a client start (or fall inside) the hold? Returns the release
  // generation the hold ends with, or -1 for "forward it".
  long hold_for(std::string_view chunk) {
    std::lock_guard lock(mu_);
    if (!armed_) return -1;
    if (!holding_ && std::none_of(hold_prefixes_.begin(), hold_prefixes_.end(),
                                  [&](const std::string& start) { return chunk.substr(0, start.size()) == start; }))
      return -1;
    holding_ = true;
    return release_generation_;
  }
  bool released(long generation) {
    std::lock_guard lock(mu_);
    return release_generation_ != generation;
  }

  static bool send_all(int fd, std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(std::size_t(n));
    }
    return true;
  }

  void relay(int client, int upstream) {
    char buf[16384];
    std::string held;
    long hold_generation = -1;  // >= 0 while this connection's requests are held
    bool client_gone = false;
    for (;;) {
      if (hold_generation >= 0 && released(hold_generation)) {
        hold_generation = -1;
        if (client_gone) {
          ++dropped_;
          break;
        }
        ++forwarded_;
        if (!send_all(upstream, held)) break;
        held.clear();
      }
      pollfd p[2] = {{client_gone ? -1 : client, POLLIN, 0}, {upstream, POLLIN, 0}};
      if (::poll(p, 2, 50) < 0) break;
      if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        const ssize_t n = ::read(client, buf, sizeof buf);
        if (n <= 0) {
          if (hold_generation < 0) break;
          client_gone = true;  // it gave up on what is held: decided at release()
        } else {
          const std::string_view chunk(buf, std::size_t(n));
          if (hold_generation < 0) {
            hold_generation = hold_for(chunk);
            if (hold_generation >= 0) ++held_;
          }
          if (hold_generation >= 0)
            held.append(chunk);
          else if (!send_all(upstream, chunk))
            break;
        }
      }
      if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        const ssize_t n = ::read(upstream, buf, sizeof buf);
        if (n <= 0) break;
        if (!client_gone && !send_all(client, std::string_view(buf, std::size_t(n)))) break;
      }
      if (stop_accepting_ && stop_) break;
    }
    std::lock_guard lock(mu_);
    std::erase(open_fds_, client);
    std::erase(open_fds_, upstream);
    ::close(client);
    ::close(upstream);
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
  // The hold (under mu_, holding_ also read without it).
  bool armed_ = false;
  std::atomic<bool> holding_{false};
  std::vector<std::string> hold_prefixes_;
  long release_generation_ = 0;
  std::atomic<int> held_{0};
  std::atomic<int> dropped_{0};
  std::atomic<int> forwarded_{0};
};

}  // namespace dha::testsupport
