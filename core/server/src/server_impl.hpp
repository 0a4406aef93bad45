#pragma once

// The server's insides, shared by its translation units: server.cpp (start, stop, the
// certificate), accept_loop.cpp (accepting and the connection limits) and connection.cpp (one
// connection's requests; the only one that includes Beast, the slowest header set in the
// build: keep it that way). Asio only here.

#include "connection_budget.hpp"
#include "connection_slots.hpp"
#include "tls_context.hpp"
#include "trusted_peers.hpp"

#include "dha/server/server.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace dha::server {

namespace detail {

inline auto awaitable_ec(boost::system::error_code& ec) {
  return boost::asio::redirect_error(boost::asio::use_awaitable, ec);
}

// Counts a running coroutine for as long as the guard lives in its frame.
class TaskGuard {
 public:
  explicit TaskGuard(std::atomic<std::size_t>& counter) : counter_(&counter) { counter_->fetch_add(1); }
  ~TaskGuard() { counter_->fetch_sub(1); }
  TaskGuard(const TaskGuard&) = delete;
  TaskGuard& operator=(const TaskGuard&) = delete;

 private:
  std::atomic<std::size_t>* counter_;
};

}  // namespace detail

class Server::Impl {
 public:
  using tcp = boost::asio::ip::tcp;

  Impl(ServerOptions options, Router router);
  ~Impl() { stop(std::chrono::milliseconds(0)); }

  void start();
  void stop(std::chrono::milliseconds grace);

  // One single-threaded io_context per thread, as nginx runs one worker per core: a
  // connection lives on one of them for its whole life, so its handlers never race and need
  // no strand. (A strand also does not fit any_io_executor's inline storage: every operation
  // then heap-allocated and reference-counted copies of it — a third of the per-request cost.)
  struct Worker {
    boost::asio::io_context ioc{1};
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
    std::thread thread;
  };
  static std::vector<std::unique_ptr<Worker>> make_workers(unsigned threads);

  // How stop() and eviction reach open connections: `idle` says whether it is between
  // requests, `reading` whether it is waiting for or reading one, `body_bytes` what it has
  // reserved for the body being read.
  struct ConnectionControl {
    std::uint64_t slot = 0;
    std::string peer;
    bool in_trusted_network = false;         // see Request::from_trusted_network
    std::function<void(bool reset)> cancel;  // posts a cancel onto its thread; guarded by connections_mutex_
    std::atomic<bool> idle{true};
    std::atomic<bool> reading{true};
    std::atomic<std::size_t> body_bytes{0};
    bool evicted = false;  // guarded by connections_mutex_
  };

  ServerOptions options_;
  Router router_;
  detail::ConnectionBudget budget_;
  detail::ConnectionSlots slots_;
  detail::TrustedPeers trust_;
  std::vector<std::unique_ptr<Worker>> workers_ = make_workers(options_.threads);
  std::size_t next_worker_ = 0;  // round-robin; used by accept_loop only
  // The acceptor and the reload timer get a thread of their own: a busy handler on a worker
  // must not stop new connections from reaching the other workers.
  Worker control_worker_;
  boost::asio::io_context& control_ = control_worker_.ioc;
  tcp::acceptor acceptor_{control_};
  boost::asio::steady_timer reload_timer_{control_};
  std::uint16_t port_ = 0;

  std::atomic<bool> started_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<std::size_t> connections_{0};
  std::atomic<std::size_t> tasks_{0};
  std::atomic<std::uint64_t> reloads_{0};
  std::atomic<std::uint64_t> refused_{0};  // closed at accept
  std::atomic<std::uint64_t> evicted_{0};  // closed to make room

  // The TLS context for new connections; open ones hold their own shared_ptr.
  mutable std::mutex tls_mutex_;
  std::shared_ptr<boost::asio::ssl::context> tls_;
  detail::PemFiles loaded_pem_;
  std::string last_read_error_;    // logged once, not every interval
  detail::PemFiles rejected_pem_;  // last files that failed to load, not retried until they change

  std::mutex connections_mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<ConnectionControl>> open_;  // by slot

  std::shared_ptr<boost::asio::ssl::context> current_tls() const {
    std::lock_guard lock(tls_mutex_);
    return tls_;
  }

  // server.cpp
  void load_certificate(bool initial);
  boost::asio::awaitable<void> reload_loop();
  // accept_loop.cpp
  boost::asio::awaitable<void> accept_loop();
  void close_for_room(std::uint64_t slot);
  bool evict_body_hog(const std::string& requester);
  // connection.cpp
  boost::asio::awaitable<void> run_connection(tcp::socket socket, std::shared_ptr<ConnectionControl> control);
  template <class Stream>
  boost::asio::awaitable<void> serve(Stream& stream, ConnectionControl& control, std::string remote, bool secure,
                                     std::chrono::steady_clock::time_point accepted);
  std::optional<Response> authorize(const Request& head) const;
  template <class Stream>
  boost::asio::awaitable<void> drain(Stream& stream);
};

}  // namespace dha::server
