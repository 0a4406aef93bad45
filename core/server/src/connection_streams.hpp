#pragma once

// The byte streams a connection of the server reads requests from and writes responses to:
// plain TCP, or TLS driven directly on the non-blocking socket. Only server.cpp includes
// this (Asio headers). Everything here runs on the connection's single-threaded io_context.
//
// Why not beast::tcp_stream / asio::ssl::stream: per request they cost more than the TLS
// encryption itself. asio::ssl::stream runs OpenSSL against a memory BIO pair and copies
// every record through it, behind several layers of composed operations; beast::basic_stream
// arms, cancels and completes a timer for every single read and write. Here OpenSSL reads
// and writes the socket itself (as nginx does) and each connection has one lazy deadline.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>

namespace dha::server::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// A socket with one deadline, enforced lazily (the way nginx keeps its timers): moving the
// deadline is a store; a watchdog sleeps until the deadline it last saw and on waking either
// sleeps again until a later one or cancels the socket's operations. Only a wait that starts
// while the watchdog sleeps past the current deadline re-arms it early.
class Connection {
 public:
  using clock = std::chrono::steady_clock;

  explicit Connection(tcp::socket socket) : socket_(std::move(socket)), timer_(socket_.get_executor()) {
    error_code ignored;
    socket_.non_blocking(true, ignored);  // reads and writes return would_block; OpenSSL needs it too
  }

  tcp::socket& socket() { return socket_; }

  void expires_after(clock::duration timeout) { expires_at(clock::now() + timeout); }
  void expires_at(clock::time_point deadline) {
    deadline_ = deadline;
    expired_ = false;
  }

  // Started once, right after construction; returns after close().
  static asio::awaitable<void> watchdog(std::shared_ptr<Connection> self) {
    while (!self->closed_) {
      self->armed_ = self->expired_ ? clock::time_point::max() : self->deadline_;
      self->timer_.expires_at(self->armed_);
      error_code ec;
      co_await self->timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      if (self->closed_) break;
      if (!self->expired_ && clock::now() >= self->deadline_) {
        self->expired_ = true;
        self->socket_.cancel(ec);
      }
    }
  }

  // Before waiting for the socket: false when the deadline has passed already; otherwise
  // makes sure the watchdog is not asleep past the deadline.
  bool prepare_wait(error_code& ec) {
    if (expired_) {
      ec = boost::beast::error::timeout;
      return false;
    }
    if (deadline_ < armed_) timer_.cancel();  // the watchdog wakes and sleeps until the earlier deadline
    return true;
  }
  // After waiting: a wait cut short by the watchdog reports beast::error::timeout.
  void finish_wait(error_code& ec) const {
    if (expired_) ec = boost::beast::error::timeout;
  }

  // Waits until the socket has bytes to read (or reports end of stream / an error). A peek
  // of one byte rather than async_wait(wait_read): Asio re-arms the descriptor with an
  // epoll_ctl system call for every async_wait, but not for a receive that finds nothing.
  asio::awaitable<void> readable(error_code& ec) {
    if (!prepare_wait(ec)) co_return;
    co_await socket_.async_receive(asio::buffer(peek_, 1), tcp::socket::message_peek,
                                   asio::redirect_error(asio::use_awaitable, ec));
    finish_wait(ec);
  }

  // Closes the socket and lets the watchdog finish.
  void close() {
    closed_ = true;
    timer_.cancel();
    error_code ignored;
    socket_.close(ignored);
  }

 private:
  tcp::socket socket_;
  asio::steady_timer timer_;
  clock::time_point deadline_ = clock::time_point::max();
  clock::time_point armed_ = clock::time_point::max();
  bool expired_ = false;
  bool closed_ = false;
  char peek_[1];
};

class PlainStream {
 public:
  explicit PlainStream(Connection& connection) : connection_(connection) {}
  Connection& connection() { return connection_; }
  // Whether bytes already read from the socket wait inside the stream (never, here).
  bool has_pending() const { return false; }

  asio::awaitable<std::size_t> read_some(asio::mutable_buffer buffer, error_code& ec) {
    for (;;) {
      const std::size_t n = connection_.socket().read_some(buffer, ec);
      if (ec != asio::error::would_block) co_return n;
      co_await connection_.readable(ec);
      if (ec) co_return 0;
    }
  }

  asio::awaitable<void> write(asio::const_buffer buffer, error_code& ec) {
    while (buffer.size() > 0) {
      const std::size_t n = connection_.socket().write_some(buffer, ec);
      if (ec == asio::error::would_block) {
        if (!connection_.prepare_wait(ec)) co_return;
        co_await connection_.socket().async_wait(tcp::socket::wait_write,
                                                 asio::redirect_error(asio::use_awaitable, ec));
        connection_.finish_wait(ec);
        if (ec) co_return;
        continue;
      }
      if (ec) co_return;
      buffer += n;
    }
  }

 private:
  Connection& connection_;
};

class TlsStream {
 public:
  TlsStream(Connection& connection, SSL_CTX* context) : connection_(connection), ssl_(SSL_new(context)) {
    if (!ssl_) throw std::runtime_error("SSL_new failed");
    // Idle keep-alive connections give their 34 KiB of record buffers back (as nginx does).
    SSL_set_mode(ssl_.get(), SSL_MODE_RELEASE_BUFFERS);
    // Read whatever has arrived in one read(2), not a record's header and body separately.
    SSL_set_read_ahead(ssl_.get(), 1);
    SSL_set_fd(ssl_.get(), connection.socket().native_handle());  // the socket keeps owning the fd
    SSL_set_accept_state(ssl_.get());
  }
  Connection& connection() { return connection_; }
  // Whether OpenSSL holds bytes already read from the socket (a record read ahead).
  bool has_pending() const { return SSL_has_pending(ssl_.get()) == 1; }
  SSL* native_handle() { return ssl_.get(); }

  // These return drive()'s awaitable itself (one coroutine frame per call, not two); the
  // lambdas hold copies of what they use.
  asio::awaitable<std::size_t> handshake(error_code& ec) {
    return drive([ssl = ssl_.get()](std::size_t&) { return SSL_do_handshake(ssl); }, ec);
  }

  asio::awaitable<std::size_t> read_some(asio::mutable_buffer buffer, error_code& ec) {
    return drive(
        [ssl = ssl_.get(), buffer](std::size_t& n) { return SSL_read_ex(ssl, buffer.data(), buffer.size(), &n); }, ec);
  }

  // Without SSL_MODE_ENABLE_PARTIAL_WRITE, SSL_write_ex succeeds only once all of `buffer`
  // is written; after a WANT_WRITE it is retried with the same arguments, as required.
  asio::awaitable<std::size_t> write(asio::const_buffer buffer, error_code& ec) {
    return drive(
        [ssl = ssl_.get(), buffer](std::size_t& n) {
          return buffer.size() == 0 ? 1 : SSL_write_ex(ssl, buffer.data(), buffer.size(), &n);
        },
        ec);
  }

  // Sends close_notify (not waiting for the peer's: the connection closes next).
  asio::awaitable<std::size_t> shutdown(error_code& ec) {
    return drive([ssl = ssl_.get()](std::size_t&) { return SSL_shutdown(ssl) >= 0 ? 1 : -1; }, ec);
  }

 private:
  // Calls an OpenSSL I/O function until it succeeds, waiting for the socket whenever OpenSSL
  // wants to read or write it; returns the bytes it reports.
  template <class Call>
  asio::awaitable<std::size_t> drive(Call call, error_code& ec) {
    ec = {};
    for (;;) {
      // SSL_get_error needs an empty error queue; clearing an empty one costs more than
      // looking at it (~600 instructions, several times per request).
      if (ERR_peek_error() != 0) ERR_clear_error();
      errno = 0;
      std::size_t n = 0;
      const int result = call(n);
      if (result > 0) co_return n;
      const int error = SSL_get_error(ssl_.get(), result);
      switch (error) {
        case SSL_ERROR_WANT_READ:
          co_await connection_.readable(ec);
          break;
        case SSL_ERROR_WANT_WRITE:
          if (connection_.prepare_wait(ec)) {
            co_await connection_.socket().async_wait(tcp::socket::wait_write,
                                                     asio::redirect_error(asio::use_awaitable, ec));
            connection_.finish_wait(ec);
          }
          break;
        case SSL_ERROR_ZERO_RETURN:
          ec = asio::error::eof;
          break;
        case SSL_ERROR_SYSCALL:
          ec = errno != 0 ? error_code(errno, boost::system::system_category()) : error_code(asio::error::eof);
          break;
        default:
          ec = error_code(static_cast<int>(ERR_get_error()), asio::error::get_ssl_category());
          if (!ec) ec = asio::error::connection_aborted;
      }
      if (ec) co_return 0;
    }
  }

  struct SslFree {
    void operator()(SSL* ssl) const { SSL_free(ssl); }
  };
  Connection& connection_;
  std::unique_ptr<SSL, SslFree> ssl_;
};

}  // namespace dha::server::detail
