#pragma once

// The abusive clients of the abuse test: plain sockets and OpenSSL, each from a loopback
// source address of its own (127.x.y.z), so that the server sees many peers.

#include <openssl/ssl.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace dha::abuse {

// Raises the soft limit on open files to the hard limit (at most `wanted`); returns the new
// soft limit.
long raise_open_file_limit(long wanted);

// The resident set of a process in KiB (0 when it cannot be read).
long rss_kib(pid_t pid);

// A TCP connection to 127.0.0.1:port from `source`; -1 when it cannot be made in time.
int connect_from(const std::string& source, std::uint16_t port, int timeout_ms);

// Holds `per_source` idle connections from each source (nothing is ever sent), re-opening
// those the server closes. Counts the connections made.
class IdleConnections {
 public:
  IdleConnections(std::uint16_t port, std::vector<std::string> sources, int per_source);
  ~IdleConnections();
  // One pass: notices closed connections and re-opens them.
  void maintain();
  std::size_t held() const;
  std::uint64_t opened() const { return opened_; }
  std::uint64_t closed_by_server() const { return closed_; }

 private:
  std::uint16_t port_;
  std::vector<std::string> sources_;
  int per_source_;
  std::vector<int> fds_;  // sources_.size() * per_source_, -1 when not connected
  std::uint64_t opened_ = 0;
  std::uint64_t closed_ = 0;
};

// TLS connections that send `request` one chunk of `chunk` bytes per tick(): slow headers,
// or a slow body when `request` ends in a large body. Re-opened when the server closes them.
class SlowTlsSenders {
 public:
  SlowTlsSenders(std::uint16_t port, std::vector<std::string> sources, std::string request, std::size_t chunk);
  ~SlowTlsSenders();
  void tick();
  std::uint64_t cut_by_server() const { return cut_; }
  std::uint64_t opened() const { return opened_; }

 private:
  struct Sender {
    int fd = -1;
    SSL* ssl = nullptr;
    std::size_t sent = 0;
  };
  void open(Sender& s, const std::string& source);
  void drop(Sender& s);

  std::uint16_t port_;
  std::vector<std::string> sources_;
  std::string request_;
  std::size_t chunk_;
  SSL_CTX* ctx_;
  std::vector<Sender> senders_;
  std::uint64_t cut_ = 0;
  std::uint64_t opened_ = 0;
};

// "127.<b>.<c>.<d>" for `count` consecutive addresses starting at 127.<b>.0.2.
std::vector<std::string> loopback_sources(int b, int count);

}  // namespace dha::abuse
