#include "http_server.hpp"

#include "api_error.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace dha::testing::apiserver {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

std::string url_decode(const std::string& text, bool plus_is_space) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::multimap<std::string, std::string> parse_query(const std::string& query) {
  std::multimap<std::string, std::string> out;
  std::size_t start = 0;
  while (start <= query.size()) {
    auto end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string pair = query.substr(start, end - start);
    if (!pair.empty()) {
      auto eq = pair.find('=');
      out.emplace(url_decode(pair.substr(0, eq), true),
                  eq == std::string::npos ? "" : url_decode(pair.substr(eq + 1), true));
    }
    start = end + 1;
  }
  return out;
}

struct HttpServer::State {
  RequestHandler handler;
  std::size_t max_body = 0;
  net::io_context io;  // only owns sockets; all I/O here is synchronous
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<net::ssl::context> ssl;
  std::thread accept_thread;
  std::atomic<bool> stopping{false};
  uint16_t port = 0;

  std::mutex mu;
  std::condition_variable idle;
  std::set<int> open_fds;  // shut down on stop() to unblock reads
  int active = 0;
  // One thread per connection, joined (never detached): a thread's exit frees OpenSSL's
  // per-thread state, and stop() must not return before that, or the process can exit with
  // a connection thread half gone (LeakSanitizer reported its DRBGs under load).
  std::map<std::thread::id, std::thread> connection_threads;
  std::vector<std::thread::id> finished;  // threads that are done and may be joined
};

namespace {

HttpRequest to_request(const http::request<http::string_body>& req) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  std::string target(req.target());
  auto q = target.find('?');
  out.path = url_decode(target.substr(0, q), false);
  out.query = q == std::string::npos ? "" : target.substr(q + 1);
  out.params = parse_query(out.query);
  for (const auto& field : req) {
    std::string name(field.name_string());
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = std::string(field.value());
  }
  out.body = req.body();
  return out;
}

// A watch client never sends anything after its request, so a readable socket means it
// closed (EOF, or a TLS close_notify) or broke the protocol: either way the watch ends.
bool peer_gone(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) != 0;
}

template <class Stream>
bool write_response(Stream& stream, const HttpResponse& response, unsigned version, bool keep_alive) {
  beast::error_code ec;
  if (response.stream) {
    http::response<http::empty_body> res{static_cast<http::status>(response.status), version};
    res.set(http::field::content_type, response.content_type);
    for (const auto& [k, v] : response.headers) res.insert(k, v);
    res.chunked(true);
    res.keep_alive(false);
    http::response_serializer<http::empty_body> serializer{res};
    http::write_header(stream, serializer, ec);
    std::string chunk;
    while (!ec && response.stream->next(chunk)) {
      if (chunk.empty()) {
        if (peer_gone(beast::get_lowest_layer(stream).native_handle())) return false;
        continue;
      }
      net::write(stream, http::make_chunk(net::buffer(chunk)), ec);
    }
    if (!ec) net::write(stream, http::make_chunk_last(), ec);
    return false;  // a watch ends its connection
  }
  http::response<http::string_body> res{static_cast<http::status>(response.status), version};
  res.set(http::field::content_type, response.content_type);
  for (const auto& [k, v] : response.headers) res.insert(k, v);
  res.body() = response.body;
  res.keep_alive(keep_alive);
  res.prepare_payload();
  http::write(stream, res, ec);
  return !ec && keep_alive;
}

HttpResponse error_response(const ApiError& error) {
  HttpResponse r;
  r.status = error.code();
  r.body = status_json(error);
  return r;
}

template <class Stream>
void serve(Stream& stream, HttpServer::State& state) {
  beast::flat_buffer buffer;
  while (!state.stopping) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(state.max_body);
    parser.header_limit(1 << 20);
    beast::error_code ec;
    http::read_header(stream, buffer, parser, ec);
    // Clients (libcurl for bodies over 1 MiB) wait for "100 Continue" before sending the
    // body, as Go's server sends it; without it every large write stalls for a second.
    if (!ec && !parser.is_done() && beast::iequals(parser.get()[http::field::expect], "100-continue")) {
      http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
      http::write(stream, go_on, ec);
    }
    if (!ec && !parser.is_done()) http::read(stream, buffer, parser, ec);
    if (ec == http::error::body_limit) {
      write_response(stream,
                     error_response(ApiError(413, "RequestEntityTooLarge",
                                             "Request entity too large: limit is " + std::to_string(state.max_body))),
                     11, false);
      return;
    }
    if (ec) {
      if (ec != http::error::end_of_stream && ec != net::error::eof && ec != net::error::connection_reset &&
          !state.stopping && ec != net::ssl::error::stream_truncated) {
        write_response(stream, error_response(bad_request("malformed HTTP request: " + ec.message())), 11, false);
      }
      return;
    }
    const auto& req = parser.get();
    HttpRequest request = to_request(req);
    HttpResponse response;
    try {
      response = state.handler(request);
    } catch (const ApiError& e) {
      response = error_response(e);
    } catch (const std::exception& e) {
      response = error_response(internal_error(e.what()));
    }
    if (!write_response(stream, response, req.version(), req.keep_alive())) return;
  }
}

// The socket comes as a unique_ptr so that it is destroyed here, explicitly, while `state` (whose
// io_context every socket's destructor still touches) is certainly alive. As by-value parameters
// their destruction order after the call is unspecified, and with `state` the last owner the
// socket outlived its io_context (a use-after-free ASan caught on SIGTERM with a watch open).
void run_connection(std::shared_ptr<HttpServer::State> state, std::unique_ptr<tcp::socket> accepted) {
  tcp::socket& socket = *accepted;
  int fd = socket.native_handle();
  bool stopping = false;
  {
    std::lock_guard lock(state->mu);
    state->open_fds.insert(fd);
    stopping = state->stopping;  // checked under the lock stop() takes, so no fd escapes it
  }
  try {
    if (stopping) throw std::runtime_error("server stopping");
    if (state->ssl) {
      beast::ssl_stream<tcp::socket> stream(std::move(socket), *state->ssl);
      beast::error_code ec;
      stream.handshake(net::ssl::stream_base::server, ec);
      if (!ec) {
        serve(stream, *state);
        stream.shutdown(ec);
      }
    } else {
      serve(socket, *state);
      beast::error_code ec;
      socket.shutdown(tcp::socket::shutdown_both, ec);
    }
  } catch (const std::exception&) {
    // A broken connection only ends itself.
  }
  accepted.reset();
  std::lock_guard lock(state->mu);
  state->open_fds.erase(fd);
  state->finished.push_back(std::this_thread::get_id());
  --state->active;
  state->idle.notify_all();
}

// Takes the threads that said they are done out of the table (a thread may finish before the
// acceptor has filed it; its id waits in `finished` until it is). Called with the lock held.
std::vector<std::thread> take_finished(HttpServer::State& state) {
  std::vector<std::thread> done;
  std::erase_if(state.finished, [&](std::thread::id id) {
    auto it = state.connection_threads.find(id);
    if (it == state.connection_threads.end()) return false;
    done.push_back(std::move(it->second));
    state.connection_threads.erase(it);
    return true;
  });
  return done;
}

}  // namespace

HttpServer::HttpServer(RequestHandler handler, std::size_t max_body_bytes) : state_(std::make_shared<State>()) {
  state_->handler = std::move(handler);
  state_->max_body = max_body_bytes;
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start(const std::string& host, uint16_t port, const Tls* tls) {
  if (tls) {
    state_->ssl = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    state_->ssl->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                             net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
    state_->ssl->use_certificate_chain(net::buffer(tls->cert_pem));
    state_->ssl->use_private_key(net::buffer(tls->key_pem), net::ssl::context::pem);
  }
  beast::error_code ec;
  auto address = net::ip::make_address(host, ec);
  if (ec) throw std::runtime_error("invalid listen address " + host + ": " + ec.message());
  tcp::endpoint endpoint(address, port);
  state_->acceptor = std::make_unique<tcp::acceptor>(state_->io);
  state_->acceptor->open(endpoint.protocol());
  state_->acceptor->set_option(net::socket_base::reuse_address(true));
  state_->acceptor->bind(endpoint, ec);
  if (ec) throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) + ": " + ec.message());
  state_->acceptor->listen(net::socket_base::max_listen_connections);
  state_->port = state_->acceptor->local_endpoint().port();
  auto state = state_;
  state_->accept_thread = std::thread([state] {
    while (!state->stopping) {
      beast::error_code accept_ec;
      tcp::socket socket(state->io);
      state->acceptor->accept(socket, accept_ec);
      if (state->stopping) break;
      if (accept_ec) continue;
      socket.set_option(tcp::no_delay(true), accept_ec);
      std::vector<std::thread> done;
      {
        std::lock_guard lock(state->mu);
        ++state->active;
        done = take_finished(*state);
      }
      for (auto& t : done) t.join();
      std::thread t(run_connection, state, std::make_unique<tcp::socket>(std::move(socket)));
      std::lock_guard lock(state->mu);
      state->connection_threads.emplace(t.get_id(), std::move(t));
    }
  });
}

void HttpServer::stop() {
  if (!state_->acceptor || state_->stopping.exchange(true)) return;
  // shutdown() wakes a thread blocked in accept()/read() on Linux; close() alone would not.
  ::shutdown(state_->acceptor->native_handle(), SHUT_RDWR);
  if (state_->accept_thread.joinable()) state_->accept_thread.join();
  beast::error_code ec;
  state_->acceptor->close(ec);
  std::vector<std::thread> threads;
  {
    std::unique_lock lock(state_->mu);
    for (int fd : state_->open_fds) ::shutdown(fd, SHUT_RDWR);
    state_->idle.wait(lock, [&] { return state_->active == 0; });
    for (auto& [id, t] : state_->connection_threads) threads.push_back(std::move(t));
    state_->connection_threads.clear();
    state_->finished.clear();
  }
  for (auto& t : threads) t.join();
}

uint16_t HttpServer::port() const { return state_->port; }

}  // namespace dha::testing::apiserver
