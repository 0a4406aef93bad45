#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dha::plugins::test {

// A tiny loopback HTTP server for fault tests: answers every request with the same bytes, or
// (with an empty answer) accepts and never answers, holding the connection until stopped. It
// remembers the last request's head so tests can check headers. Stops itself in the
// destructor; every wait in it is bounded.
class CannedHttpServer {
 public:
  explicit CannedHttpServer(std::string answer) : answer_(std::move(answer)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(listen_fd_, 16) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("CannedHttpServer: cannot listen on loopback");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }

  static std::string http(int status, const std::string& body, const std::string& content_type = "application/json") {
    return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: " + content_type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  }

  ~CannedHttpServer() {
    stopping_ = true;
    thread_.join();
    for (int fd : held_) ::close(fd);
    ::close(listen_fd_);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string last_request() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_request_;
  }

 private:
  void serve() {
    while (!stopping_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      std::string head;
      char buf[4096];
      while (head.find("\r\n\r\n") == std::string::npos && !stopping_) {
        pollfd c{fd, POLLIN, 0};
        if (::poll(&c, 1, 50) <= 0) continue;
        const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
        if (n <= 0) break;
        head.append(buf, static_cast<size_t>(n));
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        last_request_ = head;
      }
      if (answer_.empty()) {
        held_.push_back(fd);  // the slow server: never answer
        continue;
      }
      size_t sent = 0;
      while (sent < answer_.size()) {
        const ssize_t n = ::send(fd, answer_.data() + sent, answer_.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      ::close(fd);
    }
  }

  std::string answer_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<int> held_;
  std::mutex mutex_;
  std::string last_request_;
  std::thread thread_;
};

}  // namespace dha::plugins::test
