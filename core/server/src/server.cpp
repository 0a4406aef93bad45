// The only translation unit that includes Beast: keep it that way, it is the slowest header
// set in the build.

#include "connection_budget.hpp"
#include "connection_streams.hpp"
#include "tls_context.hpp"

#include <dha/server/server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <poll.h>
#include <csignal>
#include <iterator>
#include <limits>
#include <string_view>
#include <atomic>
#include <type_traits>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace dha::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

namespace {

auto awaitable_ec(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

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

// The request without its body: what the authorizer sees before any of the body is read.
Request head_of(const http::request<http::string_body>& in, const std::string& remote, bool secure) {
  Request out;
  out.method = std::string(in.method_string());
  out.target = std::string(in.target());
  auto q = out.target.find('?');
  out.path = out.target.substr(0, q);
  if (q != std::string::npos) out.query = out.target.substr(q + 1);
  out.headers.reserve(static_cast<std::size_t>(std::distance(in.begin(), in.end())));
  for (const auto& field : in) out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  out.remote_address = remote;
  out.secure = secure;
  return out;
}

bool iequals(std::string_view a, std::string_view b) { return beast::iequals(a, b); }

bool valid_header_text(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

// The response as it goes on the wire, status line to body, in one string: one buffer for
// one TLS record and one send, without Beast's serializer and its buffer-sequence views
// (which cost more than the TLS encryption of the response). The layout is what Beast
// produced: Content-Type, the handler's headers in order, Connection when needed,
// Content-Length. Framing headers are the server's: a handler's Content-Length, Connection
// or Transfer-Encoding is dropped; its Content-Type replaces the default.
std::string serialize(Response&& in, unsigned version, bool keep_alive) {
  // A handler's out-of-range status, a body on a status that cannot have one, or a header
  // that would split the response must not reach the wire.
  int status = in.status >= 100 && in.status <= 599 ? in.status : 500;
  const bool bodyless = status < 200 || status == 204 || status == 304;
  bool headers_ok = true;
  for (const auto& [name, value] : in.headers)
    headers_ok = headers_ok && !name.empty() && valid_header_text(name) && valid_header_text(value);
  headers_ok = headers_ok && valid_header_text(in.content_type);
  if ((bodyless && !in.body.empty()) || !headers_ok) {
    in = Response::text(500, bodyless && !in.body.empty()
                                 ? "internal error: a " + std::to_string(status) + " response cannot carry a body\n"
                                 : std::string("internal error: invalid response header\n"));
    status = 500;
  }
  bool own_content_type = false;
  std::size_t size = 96 + in.content_type.size();
  for (const auto& [name, value] : in.headers) {
    size += name.size() + value.size() + 4;
    own_content_type = own_content_type || iequals(name, "Content-Type");
  }
  std::string out;
  out.reserve(size);
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += http::obsolete_reason(static_cast<http::status>(status));
  out += "\r\n";
  if (!own_content_type) {
    out += "Content-Type: ";
    out += in.content_type;
    out += "\r\n";
  }
  for (const auto& [name, value] : in.headers) {
    if (iequals(name, "Content-Length") || iequals(name, "Connection") || iequals(name, "Transfer-Encoding")) continue;
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (version == 10 && keep_alive) out += "Connection: keep-alive\r\n";
  if (version != 10 && !keep_alive) out += "Connection: close\r\n";
  out += "Content-Length: ";
  out += std::to_string(in.body.size());
  out += "\r\n\r\n";
  // The head goes in front of the body, in the body's own buffer when it has the room (a
  // /metrics text reserves some), instead of copying a body of many MiB next to itself.
  in.body.insert(0, out);
  return std::move(in.body);
}

// Reading a request is Beast's http::async_read_some loop written out, without its
// composed-operation layers and without the extra trip through the event loop when the
// buffer already holds what is needed (the usual case for a body); the limits are the
// parser's, as there. serve() runs: parse what is buffered; if more is needed, read into
// read_space(); on end of input, end_of_input().

// Feeds the parser what `buffer` holds. True once done(parser); false when more input is
// needed (ec clear) or the input is invalid (ec set).
template <class Parser, class Done>
bool parse_buffered(beast::flat_buffer& buffer, Parser& parser, Done done, error_code& ec) {
  ec = {};
  while (!done(parser)) {
    if (buffer.size() == 0) return false;
    const std::size_t used = parser.put(buffer.data(), ec);
    buffer.consume(used);
    if (!ec && used > 0) continue;
    if (ec == http::error::need_more) ec = {};
    return false;
  }
  return true;
}

asio::mutable_buffer read_space(beast::flat_buffer& buffer, error_code& ec) {
  const std::size_t size = beast::read_size(buffer, 65536);
  if (size == 0) {
    ec = http::error::buffer_overflow;
    return {};
  }
  return buffer.prepare(size);
}

template <class Parser>
void end_of_input(Parser& parser, error_code& ec) {
  if (!parser.got_some()) {
    ec = http::error::end_of_stream;
    return;
  }
  ec = {};
  parser.put_eof(ec);
}

Response body_too_large(std::size_t limit) {
  return Response::text(413, "request body too large; limit is " + std::to_string(limit) + " bytes\n");
}

// Room for one request's body in the connection budget, given back when the request is done.
// `shown` mirrors the reservation for eviction to see.
class BodyReservation {
public:
  BodyReservation(detail::ConnectionBudget& budget, const std::string& peer, std::atomic<std::size_t>& shown)
      : budget_(budget), peer_(peer), shown_(shown) {}
  ~BodyReservation() {
    shown_ = 0;
    budget_.release_body(peer_, bytes_);
  }
  BodyReservation(const BodyReservation&) = delete;
  BodyReservation& operator=(const BodyReservation&) = delete;
  bool take(std::size_t bytes) {
    if (!budget_.reserve_body(peer_, bytes)) return false;
    bytes_ = bytes;
    shown_ = bytes;
    return true;
  }

private:
  detail::ConnectionBudget& budget_;
  const std::string& peer_;
  std::atomic<std::size_t>& shown_;
  std::size_t bytes_ = 0;
};

constexpr auto header_done = [](const auto& parser) { return parser.is_header_done(); };
constexpr auto message_done = [](const auto& parser) { return parser.is_done(); };

} // namespace

class Server::Impl {
public:
  Impl(ServerOptions options, Router router)
      : options_(std::move(options)), router_(std::move(router)),
        budget_({options_.max_connections_per_peer, options_.max_body_bytes_in_flight,
                 options_.max_body_bytes_in_flight_per_peer}) {}
  ~Impl() { stop(0ms); }

  void start();
  void stop(std::chrono::milliseconds grace);

  // One single-threaded io_context per thread, as nginx runs one worker per core: a
  // connection lives on one of them for its whole life, so its handlers never race and need
  // no strand. (A strand also does not fit any_io_executor's inline storage: every operation
  // then heap-allocated and reference-counted copies of it — a third of the per-request cost.)
  struct Worker {
    asio::io_context ioc{1};
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    std::thread thread;
  };
  static std::vector<std::unique_ptr<Worker>> make_workers(unsigned threads) {
    std::vector<std::unique_ptr<Worker>> workers;
    for (unsigned i = 0; i < std::max(1u, threads); ++i) workers.push_back(std::make_unique<Worker>());
    return workers;
  }

  ServerOptions options_;
  Router router_;
  detail::ConnectionBudget budget_;
  std::vector<std::unique_ptr<Worker>> workers_ = make_workers(options_.threads);
  std::size_t next_worker_ = 0; // round-robin; used by accept_loop only
  // The acceptor and the reload timer get a thread of their own: a busy handler on a worker
  // must not stop new connections from reaching the other workers.
  Worker control_worker_;
  asio::io_context& control_ = control_worker_.ioc;
  tcp::acceptor acceptor_{control_};
  asio::steady_timer reload_timer_{control_};
  std::uint16_t port_ = 0;

  std::atomic<bool> started_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<std::size_t> connections_{0};
  std::atomic<std::size_t> tasks_{0};
  std::atomic<std::uint64_t> reloads_{0};
  std::atomic<std::uint64_t> refused_{0};  // over a peer's connection share
  std::atomic<std::uint64_t> evicted_{0};  // closed to make room
  std::atomic<std::size_t> evicting_{0};   // evicted, not closed yet

  // The TLS context for new connections; open ones hold their own shared_ptr.
  mutable std::mutex tls_mutex_;
  std::shared_ptr<asio::ssl::context> tls_;
  detail::PemPair loaded_pem_;
  std::string last_read_error_;  // logged once, not every interval
  detail::PemPair rejected_pem_; // last pair that failed to load, not retried until it changes

  // How stop() and eviction reach open connections: `idle` says whether it is between
  // requests, `reading` whether it is waiting for or reading one (and may be closed to make
  // room: nothing has been decided for it yet).
  struct ConnectionControl {
    std::function<void()> cancel; // posts a cancel onto the connection's thread
    std::string peer;
    std::atomic<bool> idle{true};
    std::atomic<bool> reading{true};
    std::atomic<std::size_t> body_bytes{0}; // reserved for the body being read
    bool evicted = false; // guarded by connections_mutex_
  };
  std::mutex connections_mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<ConnectionControl>> open_;
  std::uint64_t next_id_ = 0;

  std::shared_ptr<asio::ssl::context> current_tls() const {
    std::lock_guard lock(tls_mutex_);
    return tls_;
  }

  void load_certificate(bool initial);
  asio::awaitable<void> accept_loop();
  asio::awaitable<void> reload_loop();
  void evict_for_room();
  bool evict_body_hog(const std::string& requester);
  // Whether a client waits in the listen backlog (the listening socket is readable).
  bool connection_pending() {
    pollfd waiting{acceptor_.native_handle(), POLLIN, 0};
    return ::poll(&waiting, 1, 0) == 1 && (waiting.revents & POLLIN) != 0;
  }
  asio::awaitable<void> run_connection(tcp::socket socket, std::string peer);
  template <class Stream>
  asio::awaitable<void> serve(Stream& stream, ConnectionControl& control, std::string remote, bool secure,
                              std::chrono::steady_clock::time_point accepted);
  std::optional<Response> authorize(const Request& head) const;
  template <class Stream>
  asio::awaitable<void> drain(Stream& stream);
};

void Server::Impl::load_certificate(bool initial) {
  const auto& tls = *options_.tls;
  const auto cert_path = tls.cert_dir / tls.cert_file;
  const auto key_path = tls.cert_dir / tls.key_file;
  std::string error;
  auto pem = detail::read_pem_pair(cert_path, key_path, error);
  if (!pem) {
    if (initial) throw std::runtime_error(options_.name + ": cannot load TLS certificate: " + error);
    if (error != last_read_error_) spdlog::warn("{}: keeping the current certificate: {}", options_.name, error);
    last_read_error_ = error;
    return;
  }
  last_read_error_.clear();
  if (!initial && (*pem == loaded_pem_ || *pem == rejected_pem_)) return;
  try {
    auto ctx = detail::make_tls_context(pem->cert, pem->key);
    std::lock_guard lock(tls_mutex_);
    tls_ = std::move(ctx);
    loaded_pem_ = std::move(*pem);
  } catch (const std::exception& e) {
    if (initial)
      throw std::runtime_error(options_.name + ": cannot load TLS certificate from " + tls.cert_dir.string() + ": " +
                               e.what());
    // cert-manager writes the two files one after the other; a mismatch is usually transient.
    rejected_pem_ = std::move(*pem);
    spdlog::warn("{}: ignoring the certificate in {} for now: {}", options_.name, tls.cert_dir.string(), e.what());
    return;
  }
  if (!initial) {
    reloads_.fetch_add(1);
    spdlog::info("{}: reloaded the TLS certificate from {}", options_.name, tls.cert_dir.string());
  }
}

void Server::Impl::start() {
  if (started_.exchange(true)) throw std::runtime_error(options_.name + ": already started");
  if (options_.tls) load_certificate(true);

  error_code ec;
  auto address = asio::ip::make_address(options_.host, ec);
  if (ec) throw std::runtime_error(options_.name + ": invalid listen host \"" + options_.host + "\": " + ec.message());
  tcp::endpoint endpoint{address, options_.port};
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error(options_.name + ": cannot listen on " + where + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();

  for (auto& worker : workers_) worker->work.emplace(worker->ioc.get_executor());
  control_worker_.work.emplace(control_.get_executor());
  asio::co_spawn(control_, accept_loop(), asio::detached);
  if (options_.tls) asio::co_spawn(control_, reload_loop(), asio::detached);
  for (auto& worker : workers_)
    worker->thread = std::thread([&ioc = worker->ioc] {
      // OpenSSL writes to the socket itself, with write(2): to a peer that has gone that
      // raises SIGPIPE, which would end the process. Blocked in this thread only, the write
      // just fails with EPIPE (Asio's own sends use MSG_NOSIGNAL).
      sigset_t pipe;
      sigemptyset(&pipe);
      sigaddset(&pipe, SIGPIPE);
      pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
      ioc.run();
    });
  control_worker_.thread = std::thread([this] { control_.run(); });
}

asio::awaitable<void> Server::Impl::accept_loop() {
  TaskGuard task(tasks_);
  asio::steady_timer wait(control_);
  while (!stopping_) {
    // At the limit, make room by closing a connection of the peer holding the most, and
    // meanwhile stop accepting: further clients queue in the kernel backlog instead of being
    // refused (like Go's netutil.LimitListener).
    if (connections_.load() >= options_.max_connections) {
      if (evicting_.load() == 0 && connection_pending()) evict_for_room();
      wait.expires_after(1ms);
      error_code ignored;
      co_await wait.async_wait(awaitable_ec(ignored));
      continue;
    }
    error_code ec;
    auto& worker = *workers_[next_worker_++ % workers_.size()];
    tcp::socket socket = co_await acceptor_.async_accept(worker.ioc, awaitable_ec(ec));
    if (stopping_ || ec == asio::error::operation_aborted) break;
    if (ec) {
      // EMFILE and friends: back off briefly rather than spin.
      spdlog::warn("{}: accept failed: {}", options_.name, ec.message());
      wait.expires_after(10ms);
      error_code ignored;
      co_await wait.async_wait(awaitable_ec(ignored));
      continue;
    }
    auto peer = socket.remote_endpoint(ec);
    std::string peer_address = ec ? std::string("unknown") : peer.address().to_string();
    if (!budget_.admit(peer_address)) {
      refused_.fetch_add(1);
      socket.close(ec);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    connections_.fetch_add(1);
    auto executor = socket.get_executor();
    asio::co_spawn(executor, run_connection(std::move(socket), std::move(peer_address)), asio::detached);
  }
}

// Closes the oldest connection still waiting for or reading a request among those of the
// peer holding the most: a client that opens many cannot starve one that opens few.
void Server::Impl::evict_for_room() {
  std::lock_guard lock(connections_mutex_);
  std::unordered_map<std::string_view, std::size_t> per_peer;
  for (const auto& [id, control] : open_) ++per_peer[control->peer];
  ConnectionControl* chosen = nullptr;
  std::size_t chosen_peer_connections = 0;
  std::uint64_t chosen_id = 0;
  for (const auto& [id, control] : open_) {
    if (control->evicted || !control->reading) continue;
    const std::size_t held = per_peer[control->peer];
    if (chosen == nullptr || held > chosen_peer_connections || (held == chosen_peer_connections && id < chosen_id)) {
      chosen = control.get();
      chosen_peer_connections = held;
      chosen_id = id;
    }
  }
  if (chosen == nullptr) return;
  chosen->evicted = true;
  evicting_.fetch_add(1);
  evicted_.fetch_add(1);
  chosen->cancel();
}

// When bodies in flight fill the budget: closes the connection reading the largest body of
// the peer holding the most body bytes, if that peer holds more than `requester` does. False
// when there is nobody to cut.
bool Server::Impl::evict_body_hog(const std::string& requester) {
  std::lock_guard lock(connections_mutex_);
  std::unordered_map<std::string_view, std::size_t> per_peer;
  for (const auto& [id, control] : open_)
    if (control->reading && !control->evicted) per_peer[control->peer] += control->body_bytes.load();
  const std::size_t own = per_peer[requester];
  ConnectionControl* chosen = nullptr;
  std::size_t chosen_peer_bytes = own;
  for (const auto& [id, control] : open_) {
    if (control->evicted || !control->reading || control->body_bytes.load() == 0 || control->peer == requester)
      continue;
    const std::size_t held = per_peer[control->peer];
    if (held > chosen_peer_bytes || (chosen != nullptr && held == chosen_peer_bytes &&
                                     control->body_bytes.load() > chosen->body_bytes.load())) {
      chosen = control.get();
      chosen_peer_bytes = held;
    }
  }
  if (chosen == nullptr) return false;
  chosen->evicted = true;
  evicting_.fetch_add(1);
  evicted_.fetch_add(1);
  chosen->cancel();
  return true;
}

asio::awaitable<void> Server::Impl::reload_loop() {
  TaskGuard task(tasks_);
  while (!stopping_) {
    reload_timer_.expires_after(options_.tls->reload_interval);
    error_code ec;
    co_await reload_timer_.async_wait(awaitable_ec(ec));
    if (stopping_) break;
    load_certificate(false);
  }
}

asio::awaitable<void> Server::Impl::run_connection(tcp::socket socket, std::string peer) {
  TaskGuard task(tasks_);
  const auto accepted = std::chrono::steady_clock::now();
  struct Release {
    Impl* self;
    const std::string& peer;
    std::uint64_t id = 0;
    ~Release() {
      {
        std::lock_guard lock(self->connections_mutex_);
        auto it = self->open_.find(id);
        if (it != self->open_.end() && it->second->evicted) self->evicting_.fetch_sub(1);
        if (it != self->open_.end()) self->open_.erase(it);
      }
      self->budget_.release(peer);
      self->connections_.fetch_sub(1);
    }
  } release{this, peer};

  error_code ec;
  auto endpoint = socket.remote_endpoint(ec);
  std::string remote = ec ? "unknown" : endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
  auto executor = socket.get_executor();
  auto connection = std::make_shared<detail::Connection>(std::move(socket));
  asio::co_spawn(executor, detail::Connection::watchdog(connection), asio::detached);
  struct Close {
    detail::Connection& connection;
    ~Close() { connection.close(); }
  } close{*connection};

  auto control = std::make_shared<ConnectionControl>();
  control->peer = peer;
  control->cancel = [executor, weak = std::weak_ptr(connection)] {
    asio::post(executor, [weak] {
      if (auto c = weak.lock()) {
        error_code ignored;
        c->socket().cancel(ignored);
      }
    });
  };
  {
    std::lock_guard lock(connections_mutex_);
    release.id = ++next_id_;
    open_.emplace(release.id, control);
  }

  if (!options_.tls) {
    detail::PlainStream stream(*connection);
    co_await serve(stream, *control, std::move(remote), false, accepted);
    connection->socket().shutdown(tcp::socket::shutdown_send, ec);
    co_return;
  }

  // No TLS state until the client has sent something: OpenSSL allocates its record buffers
  // for a handshake in progress, and silent connections would hold them.
  connection->expires_at(accepted + std::min(options_.handshake_timeout, options_.header_timeout));
  co_await connection->readable(ec);
  if (ec) co_return;
  auto tls = current_tls(); // held for the connection's life: rotation never affects it
  std::optional<detail::TlsStream> stream;
  try {
    stream.emplace(*connection, tls->native_handle());
  } catch (const std::exception& e) {
    spdlog::warn("{}: cannot set up TLS for {}: {}", options_.name, remote, e.what());
    co_return;
  }
  co_await stream->handshake(ec);
  if (ec) co_return;
  co_await serve(*stream, *control, std::move(remote), true, accepted);
  connection->expires_after(1s);
  co_await stream->shutdown(ec);
}

template <class Stream>
asio::awaitable<void> Server::Impl::serve(Stream& stream, ConnectionControl& control, std::string remote, bool secure,
                                          std::chrono::steady_clock::time_point accepted) {
  beast::flat_buffer buffer;
  auto started = accepted; // the first request's deadlines count from accept
  bool first = true;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options_.max_header_bytes, UINT32_MAX)));
    // The route's limit is applied once the header names the route.
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());

    control.idle = true;
    control.reading = true;
    if (stopping_) co_return;
    error_code ec;
    if (!first) {
      // A keep-alive connection waits for its next request; its deadlines count from the
      // request's first byte.
      if (buffer.size() == 0 && !stream.has_pending()) {
        stream.connection().expires_after(options_.idle_timeout);
        co_await stream.connection().readable(ec);
        if (ec) co_return;
      }
      started = std::chrono::steady_clock::now();
    }
    stream.connection().expires_at(started + options_.header_timeout);
    parser.eager(false);
    while (!parse_buffered(buffer, parser, header_done, ec) && !ec) {
      const auto space = read_space(buffer, ec);
      if (ec) break;
      buffer.commit(co_await stream.read_some(space, ec));
      if (ec == asio::error::eof) end_of_input(parser, ec);
      if (ec) break;
    }
    control.idle = false;

    std::optional<Response> refusal;
    std::optional<Request> head;
    BodyReservation reservation(budget_, control.peer, control.body_bytes);
    if (ec == http::error::header_limit) {
      refusal = Response::text(431, "request header fields too large\n");
    } else if (ec) {
      co_return; // closed, timed out, cancelled by stop(), or not HTTP/1.x
    } else {
      const std::string_view target = parser.get().target();
      const std::size_t limit =
          router_.body_limit(target.substr(0, target.find('?'))).value_or(options_.max_body_bytes);
      const auto length = parser.content_length();
      if (length && *length > limit) refusal = body_too_large(limit);
      if (!refusal && options_.authorizer) {
        head = head_of(parser.get(), remote, secure);
        refusal = authorize(*head); // before any of the body is read
      }
      // Unknown until read, a chunked body is budgeted at the route's limit.
      const std::size_t expected = length ? static_cast<std::size_t>(*length) : parser.chunked() ? limit : 0;
      if (!refusal && !reservation.take(expected)) {
        // Bodies of clients holding more than this one are cut to make room, briefly awaited.
        bool taken = false;
        if (evict_body_hog(control.peer)) {
          asio::steady_timer wait(co_await asio::this_coro::executor);
          for (int attempt = 0; attempt < 20 && !taken; ++attempt) {
            wait.expires_after(5ms);
            co_await wait.async_wait(awaitable_ec(ec));
            taken = reservation.take(expected);
          }
          ec = {};
        }
        if (!taken) refusal = Response::text(503, "server busy: too many request bodies in flight; retry\n");
      }
      if (!refusal) {
        parser.body_limit(limit);
        if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
          static constexpr std::string_view cont = "HTTP/1.1 100 Continue\r\n\r\n";
          stream.connection().expires_after(options_.write_timeout);
          co_await stream.write(asio::buffer(cont), ec);
          if (ec) co_return;
        }
        stream.connection().expires_at(started + options_.read_timeout);
        parser.eager(true);
        while (!parse_buffered(buffer, parser, message_done, ec) && !ec) {
          const auto space = read_space(buffer, ec);
          if (ec) break;
          buffer.commit(co_await stream.read_some(space, ec));
          if (ec == asio::error::eof) end_of_input(parser, ec);
          if (ec) break;
        }
        if (ec == http::error::body_limit) {
          refusal = body_too_large(limit);
        } else if (ec) {
          co_return;
        }
      }
    }
    control.reading = false;

    const unsigned version = parser.get().version() == 10 ? 10 : 11;
    const bool client_keep_alive = parser.get().keep_alive();
    Response response;
    if (refusal) {
      response = std::move(*refusal);
    } else {
      Request request = head ? std::move(*head) : head_of(parser.get(), remote, secure);
      request.body = std::move(parser.get().body());
      response = router_.dispatch(request);
    }
    // After a refused request the rest of its bytes are unread: the connection cannot be
    // reused. Decided after the handler ran, so a stop() during it is seen.
    const bool keep_alive = !refusal && client_keep_alive && !stopping_;
    const std::string out = serialize(std::move(response), version, keep_alive);
    stream.connection().expires_after(options_.write_timeout);
    co_await stream.write(asio::buffer(out), ec);
    if (ec) co_return;
    if (refusal) co_await drain(stream);
    if (!keep_alive) co_return;
    first = false;
  }
}

// Closing a socket with unread bytes makes the kernel send a reset, and a client still
// uploading then loses the 413/431 we just wrote. Read and discard briefly first (what Go's
// server does with closeWriteAndWait).
template <class Stream>
asio::awaitable<void> Server::Impl::drain(Stream& stream) {
  error_code ec;
  if constexpr (std::is_same_v<Stream, detail::PlainStream>)
    stream.connection().socket().shutdown(tcp::socket::shutdown_send, ec);
  stream.connection().expires_after(500ms);
  std::array<char, 8192> discard;
  std::size_t total = 0;
  while (total < 4 * 1024 * 1024) {
    total += co_await stream.read_some(asio::buffer(discard), ec);
    if (ec) break;
  }
}

// Runs on the request's header, before any of its body is read: an unauthorized client
// cannot make the server buffer anything.
std::optional<Response> Server::Impl::authorize(const Request& head) const {
  AuthorizationResult verdict;
  try {
    verdict = options_.authorizer(head);
  } catch (const std::exception& e) {
    return Response::text(500, std::string("authorization failed: ") + e.what() + "\n");
  }
  if (verdict.allowed) return std::nullopt;
  const int status = verdict.status == 401 ? 401 : verdict.status == 429 ? 429 : verdict.status == 503 ? 503 : 403;
  const std::string fallback = status == 401 ? "Unauthorized" : status == 403 ? "Forbidden" : "try again later";
  return Response::text(status, (verdict.message.empty() ? fallback : verdict.message) + "\n");
}

void Server::Impl::stop(std::chrono::milliseconds grace) {
  if (!started_ || stopped_.exchange(true)) return;
  stopping_ = true;
  asio::post(control_, [this] {
    error_code ignored;
    acceptor_.close(ignored);
    reload_timer_.cancel();
  });

  auto cancel_where = [this](bool only_idle) {
    std::lock_guard lock(connections_mutex_);
    for (auto& [id, control] : open_)
      if (!only_idle || control->idle) control->cancel();
  };
  // Idle keep-alive connections go at once; busy ones finish their request (answered with
  // Connection: close) or are cut at the deadline.
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (connections_.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    cancel_where(true);
    std::this_thread::sleep_for(5ms);
  }
  const auto hard_deadline = std::chrono::steady_clock::now() + 2s;
  while (tasks_.load() > 0 && std::chrono::steady_clock::now() < hard_deadline) {
    cancel_where(false);
    std::this_thread::sleep_for(5ms);
  }
  std::vector<Worker*> all{&control_worker_};
  for (auto& worker : workers_) all.push_back(worker.get());
  for (auto* worker : all) worker->work.reset();
  for (auto* worker : all)
    if (tasks_.load() > 0) worker->ioc.stop(); // a stuck task must not hang shutdown
  for (auto* worker : all)
    if (worker->thread.joinable()) worker->thread.join();
}

Server::Server(ServerOptions options, Router router)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(router))) {}
Server::~Server() = default;
void Server::start() { impl_->start(); }
std::uint16_t Server::port() const { return impl_->port_; }
void Server::stop(std::chrono::milliseconds grace) { impl_->stop(grace); }
std::size_t Server::active_connections() const { return impl_->connections_.load(); }
std::uint64_t Server::certificate_reloads() const { return impl_->reloads_.load(); }
std::uint64_t Server::refused_connections() const { return impl_->refused_.load(); }
std::uint64_t Server::evicted_connections() const { return impl_->evicted_.load(); }

} // namespace dha::server
