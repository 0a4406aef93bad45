#include "abuse_clients.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace dha::abuse {

long raise_open_file_limit(long wanted) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
  const rlim_t target = std::min<rlim_t>(limit.rlim_max, static_cast<rlim_t>(wanted));
  if (limit.rlim_cur < target) {
    limit.rlim_cur = target;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  return static_cast<long>(limit.rlim_cur);
}

long rss_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

int connect_from(const std::string& source, std::uint16_t port, int timeout_ms) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  sockaddr_in from{};
  from.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &from.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
      (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    ::close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int error = 0;
  socklen_t length = sizeof error;
  if (::poll(&p, 1, timeout_ms) != 1 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

namespace {

// True when the peer has closed (or reset) the connection.
bool closed_by_peer(int fd) {
  char byte;
  const ssize_t n = ::recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

}  // namespace

IdleConnections::IdleConnections(std::uint16_t port, std::vector<std::string> sources, int per_source)
    : port_(port),
      sources_(std::move(sources)),
      per_source_(per_source),
      fds_(sources_.size() * static_cast<std::size_t>(per_source), -1) {}

IdleConnections::~IdleConnections() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

void IdleConnections::maintain() {
  for (std::size_t i = 0; i < fds_.size(); ++i) {
    if (fds_[i] >= 0 && closed_by_peer(fds_[i])) {
      ::close(fds_[i]);
      fds_[i] = -1;
      ++closed_;
    }
    if (fds_[i] < 0) {
      fds_[i] = connect_from(sources_[i / static_cast<std::size_t>(per_source_)], port_, 20);
      opened_ += fds_[i] >= 0;
    }
  }
}

std::size_t IdleConnections::held() const {
  return static_cast<std::size_t>(std::count_if(fds_.begin(), fds_.end(), [](int fd) { return fd >= 0; }));
}

SlowTlsSenders::SlowTlsSenders(std::uint16_t port, std::vector<std::string> sources, std::string request,
                               std::size_t chunk)
    : port_(port),
      sources_(std::move(sources)),
      request_(std::move(request)),
      chunk_(chunk),
      ctx_(SSL_CTX_new(TLS_client_method())),
      senders_(sources_.size()) {
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);  // an attacker does not care who answers
}

SlowTlsSenders::~SlowTlsSenders() {
  for (auto& s : senders_) drop(s);
  SSL_CTX_free(ctx_);
}

void SlowTlsSenders::open(Sender& s, const std::string& source) {
  s.fd = connect_from(source, port_, 50);
  if (s.fd < 0) return;
  ::fcntl(s.fd, F_SETFL, ::fcntl(s.fd, F_GETFL) & ~O_NONBLOCK);
  timeval timeout{0, 300 * 1000};
  ::setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(s.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  s.ssl = SSL_new(ctx_);
  SSL_set_fd(s.ssl, s.fd);
  if (SSL_connect(s.ssl) != 1) {
    drop(s);
    return;
  }
  s.sent = 0;
  ++opened_;
}

void SlowTlsSenders::drop(Sender& s) {
  if (s.ssl != nullptr) SSL_free(s.ssl);
  if (s.fd >= 0) ::close(s.fd);
  s = Sender{};
}

void SlowTlsSenders::tick() {
  int opens = 0;  // a few per tick once the server is full: an open may wait in its backlog
  for (std::size_t i = 0; i < senders_.size(); ++i) {
    Sender& s = senders_[i];
    if (s.ssl == nullptr && (opened_ < senders_.size() || opens++ < 5)) open(s, sources_[i]);
    if (s.ssl == nullptr) continue;
    if (closed_by_peer(s.fd) || s.sent >= request_.size()) {
      ++cut_;
      drop(s);
      continue;
    }
    const std::size_t n = std::min(chunk_, request_.size() - s.sent);
    if (SSL_write(s.ssl, request_.data() + s.sent, static_cast<int>(n)) <= 0) {
      ++cut_;
      drop(s);
      continue;
    }
    s.sent += n;
  }
}

std::vector<std::string> loopback_sources(int b, int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) {
    std::ostringstream address;
    address << "127." << b << '.' << (i + 2) / 250 << '.' << (i + 2) % 250 + 2;
    out.push_back(address.str());
  }
  return out;
}

}  // namespace dha::abuse
