// The server's life: construction, start, stop, and the certificate it serves and re-reads.

#include "server_impl.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

namespace dha::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using detail::awaitable_ec;
using detail::TaskGuard;
using namespace std::chrono_literals;

namespace {

detail::SlotLimits slot_limits(const ServerOptions& o) {
  detail::SlotLimits limits;
  limits.max_connections = o.max_connections;
  limits.reserved_for_trusted = std::min(o.reserved_connections, o.max_connections / 2);
  limits.max_per_peer = o.max_connections_per_peer;
  limits.max_per_trusted_peer = std::max(o.max_connections_per_trusted_peer, o.max_connections_per_peer);
  return limits;
}

std::vector<detail::Network> trusted_networks(const ServerOptions& o) {
  std::vector<detail::Network> out;
  for (const auto& text : o.trusted_networks) out.push_back(detail::Network::parse(text));
  return out;
}

}  // namespace

Server::Impl::Impl(ServerOptions options, Router router)
    : options_(std::move(options)),
      router_(std::move(router)),
      budget_({options_.max_body_bytes_in_flight, options_.max_body_bytes_in_flight_per_peer}),
      slots_(slot_limits(options_)),
      trust_(trusted_networks(options_), options_.max_learned_trusted_peers, options_.learned_trust_for) {}

std::vector<std::unique_ptr<Server::Impl::Worker>> Server::Impl::make_workers(unsigned threads) {
  std::vector<std::unique_ptr<Worker>> workers;
  for (unsigned i = 0; i < std::max(1u, threads); ++i) workers.push_back(std::make_unique<Worker>());
  return workers;
}

void Server::Impl::load_certificate(bool initial) {
  const auto& tls = *options_.tls;
  const auto cert_path = tls.cert_dir / tls.cert_file;
  const auto key_path = tls.cert_dir / tls.key_file;
  const std::string from =
      tls.cert_dir.string() + (tls.client_ca_file ? " and client CA " + tls.client_ca_file->string() : "");
  std::string error;
  auto pem = detail::read_pem_files(cert_path, key_path, tls.client_ca_file, error);
  if (!pem) {
    if (initial) throw std::runtime_error(options_.name + ": cannot load TLS certificate: " + error);
    if (error != last_read_error_) spdlog::warn("{}: keeping the current certificate: {}", options_.name, error);
    last_read_error_ = error;
    return;
  }
  last_read_error_.clear();
  if (!initial && (*pem == loaded_pem_ || *pem == rejected_pem_)) return;
  try {
    detail::ClientVerification clients;
    if (tls.client_ca_file) clients = {pem->client_ca, tls.client_names};
    auto ctx = detail::make_tls_context(pem->cert, pem->key, clients);
    std::lock_guard lock(tls_mutex_);
    tls_ = std::move(ctx);
    loaded_pem_ = std::move(*pem);
  } catch (const std::exception& e) {
    if (initial)
      throw std::runtime_error(options_.name + ": cannot load TLS certificate from " + from + ": " + e.what());
    // cert-manager writes the two files one after the other; a mismatch is usually transient.
    rejected_pem_ = std::move(*pem);
    spdlog::warn("{}: ignoring the certificate in {} for now: {}", options_.name, from, e.what());
    return;
  }
  if (!initial) {
    reloads_.fetch_add(1);
    spdlog::info("{}: reloaded the TLS certificate from {}", options_.name, from);
  }
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
  if (!ec && options_.defer_accept.count() > 0) {
    // The kernel completes the TCP handshake but hands the connection over only once its first
    // bytes arrive (or the period ends): a flood's silent sockets wait in its SYN queue instead
    // of the accept queue, where each would be accepted, weighed and closed ahead of a client
    // that has sent its ClientHello. (nginx's `listen ... deferred`.)
    const int seconds = static_cast<int>(options_.defer_accept.count());
    if (::setsockopt(acceptor_.native_handle(), IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds, sizeof seconds) != 0)
      spdlog::warn("{}: TCP_DEFER_ACCEPT not set: {}", options_.name, std::strerror(errno));
  }
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
      if ((!only_idle || control->idle) && control->cancel) control->cancel(false);
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
    if (tasks_.load() > 0) worker->ioc.stop();  // a stuck task must not hang shutdown
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

}  // namespace dha::server
