// One connection's life: TLS set-up, reading requests within their limits and deadlines,
// routing them and writing the responses. The only translation unit that includes Beast:
// keep it that way, it is the slowest header set in the build.

#include "connection_streams.hpp"
#include "server_impl.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <iterator>
#include <limits>
#include <string_view>
#include <type_traits>

namespace dha::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using detail::awaitable_ec;
using detail::Phase;
using detail::TaskGuard;
using namespace std::chrono_literals;

namespace {

// The request without its body: what the authorizer sees before any of the body is read.
Request head_of(const http::request<http::string_body>& in, const std::string& remote, bool secure,
                bool from_trusted_network) {
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
  out.from_trusted_network = from_trusted_network;
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
// parser's, as there. read_until_done() runs: parse what is buffered; if more is needed, read
// into read_space(); on end of input, end_of_input().

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

// Reads and parses until done(parser), or until an error, left in `ec`.
template <class Stream, class Parser, class Done>
asio::awaitable<void> read_until_done(Stream& stream, beast::flat_buffer& buffer, Parser& parser, Done done,
                                      error_code& ec) {
  while (!parse_buffered(buffer, parser, done, ec) && !ec) {
    const auto space = read_space(buffer, ec);
    if (ec) break;
    buffer.commit(co_await stream.read_some(space, ec));
    if (ec == asio::error::eof) end_of_input(parser, ec);
    if (ec) break;
  }
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

// Takes room for a body of `expected` bytes. When the budget is full, evict() cuts the bodies of
// clients holding more than this one, and the room they free is awaited briefly.
template <class Evict>
asio::awaitable<bool> take_room(BodyReservation& reservation, std::size_t expected, Evict evict) {
  if (reservation.take(expected)) co_return true;
  bool taken = false;
  if (evict()) {
    error_code ec;
    asio::steady_timer wait(co_await asio::this_coro::executor);
    for (int attempt = 0; attempt < 20 && !taken; ++attempt) {
      wait.expires_after(5ms);
      co_await wait.async_wait(awaitable_ec(ec));
      taken = reservation.take(expected);
    }
  }
  co_return taken;
}

constexpr auto header_done = [](const auto& parser) { return parser.is_header_done(); };
constexpr auto message_done = [](const auto& parser) { return parser.is_done(); };

}  // namespace

asio::awaitable<void> Server::Impl::run_connection(tcp::socket socket, std::shared_ptr<ConnectionControl> control) {
  TaskGuard task(tasks_);
  const auto accepted = std::chrono::steady_clock::now();
  struct Release {
    Impl* self;
    std::uint64_t slot;
    ~Release() {
      {
        std::lock_guard lock(self->connections_mutex_);
        self->open_.erase(slot);
      }
      self->slots_.release(slot);
      self->connections_.fetch_sub(1);
    }
  } release{this, control->slot};

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

  {
    std::lock_guard lock(connections_mutex_);
    // Closed to make room before it even started.
    if (control->evicted || stopping_) co_return;
    control->cancel = [executor, weak = std::weak_ptr(connection)](bool reset) {
      asio::post(executor, [weak, reset] {
        if (auto c = weak.lock()) {
          error_code ignored;
          // Closed to make room: a reset, leaving no TIME_WAIT behind.
          if (reset) c->socket().set_option(asio::socket_base::linger(true, 0), ignored);
          c->socket().cancel(ignored);
        }
      });
    };
  }

  // A client that connects and sends nothing holds a slot for first_byte_timeout at most.
  // And no TLS state until it has sent something: OpenSSL allocates its record buffers for
  // a handshake in progress, and silent connections would hold them.
  connection->expires_at(accepted +
                         std::min({options_.first_byte_timeout, options_.handshake_timeout, options_.header_timeout}));
  co_await connection->readable(ec);
  if (ec) co_return;
  slots_.set_phase(control->slot, Phase::partial);

  if (!options_.tls) {
    detail::PlainStream stream(*connection);
    co_await serve(stream, *control, std::move(remote), false, accepted);
    connection->socket().shutdown(tcp::socket::shutdown_send, ec);
    co_return;
  }

  connection->expires_at(accepted + std::min(options_.handshake_timeout, options_.header_timeout));
  auto tls = current_tls();  // held for the connection's life: rotation never affects it
  std::optional<detail::TlsStream> stream;
  try {
    stream.emplace(*connection, tls->native_handle());
  } catch (const std::exception& e) {
    spdlog::warn("{}: cannot set up TLS for {}: {}", options_.name, remote, e.what());
    co_return;
  }
  co_await stream->handshake(ec);
  if (ec) {
    // Under a client CA, why a caller was refused: its certificate's fault, or none sent.
    if (options_.tls->client_ca_file) {
      const long verified = SSL_get_verify_result(stream->native_handle());
      spdlog::debug("{}: TLS handshake with {} failed: {}", options_.name, remote,
                    verified != X509_V_OK ? X509_verify_cert_error_string(verified) : ec.message());
    }
    co_return;
  }
  // The handshake required a certificate from the client CA: the peer is who the server is
  // for, as surely as a vouched-for request says (and sooner).
  if (options_.tls->client_ca_file) trust_.vouch(control->peer, std::chrono::steady_clock::now());
  co_await serve(*stream, *control, std::move(remote), true, accepted);
  connection->expires_after(1s);
  co_await stream->shutdown(ec);
}

template <class Stream>
asio::awaitable<void> Server::Impl::serve(Stream& stream, ConnectionControl& control, std::string remote, bool secure,
                                          std::chrono::steady_clock::time_point accepted) {
  beast::flat_buffer buffer;
  auto started = accepted;  // the first request's deadlines count from accept
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
      // request's first byte. Meanwhile it may be closed to make room.
      if (buffer.size() == 0 && !stream.has_pending()) {
        slots_.set_phase(control.slot, Phase::silent);
        stream.connection().expires_after(options_.idle_timeout);
        co_await stream.connection().readable(ec);
        if (ec) co_return;
        slots_.set_phase(control.slot, Phase::partial);
      }
      started = std::chrono::steady_clock::now();
    }
    stream.connection().expires_at(started + options_.header_timeout);
    parser.eager(false);
    co_await read_until_done(stream, buffer, parser, header_done, ec);
    control.idle = false;
    if (!ec) slots_.set_phase(control.slot, Phase::busy);

    std::optional<Response> refusal;
    std::optional<Request> head;
    BodyReservation reservation(budget_, control.peer, control.body_bytes);
    if (ec == http::error::header_limit) {
      refusal = Response::text(431, "request header fields too large\n");
    } else if (ec) {
      co_return;  // closed, timed out, cancelled by stop(), or not HTTP/1.x
    } else {
      const std::string_view target = parser.get().target();
      const std::size_t limit =
          router_.body_limit(target.substr(0, target.find('?'))).value_or(options_.max_body_bytes);
      const auto length = parser.content_length();
      if (length && *length > limit) refusal = body_too_large(limit);
      if (!refusal && options_.authorizer) {
        head = head_of(parser.get(), remote, secure, control.in_trusted_network);
        refusal = authorize(*head);  // before any of the body is read
      }
      // Unknown until read, a chunked body is budgeted at the route's limit.
      const std::size_t expected = length ? static_cast<std::size_t>(*length) : parser.chunked() ? limit : 0;
      if (!refusal && !co_await take_room(reservation, expected, [&] { return evict_body_hog(control.peer); }))
        refusal = Response::text(503, "server busy: too many request bodies in flight; retry\n");
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
        co_await read_until_done(stream, buffer, parser, message_done, ec);
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
      Request request = head ? std::move(*head) : head_of(parser.get(), remote, secure, control.in_trusted_network);
      request.body = std::move(parser.get().body());
      response = router_.dispatch(request);
      if (response.vouches_for_peer) trust_.vouch(control.peer, std::chrono::steady_clock::now());
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
}  // namespace dha::server
