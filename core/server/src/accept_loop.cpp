// Accepting connections and the limits on what clients hold: slots (see connection_slots.hpp)
// and, once bodies fill their budget, cutting the heaviest peer's body.

#include "server_impl.hpp"

#include <spdlog/spdlog.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <sys/ioctl.h>

#include <string_view>

namespace dha::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;
using detail::awaitable_ec;
using detail::TaskGuard;
using namespace std::chrono_literals;

asio::awaitable<void> Server::Impl::accept_loop() {
  TaskGuard task(tasks_);
  asio::steady_timer wait(control_);
  while (!stopping_) {
    // Accepting never pauses while the server is full: every newcomer is decided here at
    // once, so none waits in the listen backlog behind a flood. Only while the connections
    // already closed to make room have not gone yet does it wait (their threads close them
    // within moments): a newcomer accepted then could only be reset.
    if (slots_.closing() >= slots_.limits().max_closing) {
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
    const bool trusted = !ec && trust_.trusted(peer_address, std::chrono::steady_clock::now());
    // A client that waited in the backlog has usually sent its first bytes already: it is not
    // one of a flood's silent sockets, though its thread has not looked at it yet.
    int waiting_bytes = 0;
    const bool has_sent = ::ioctl(socket.native_handle(), FIONREAD, &waiting_bytes) == 0 && waiting_bytes > 0;
    const detail::SlotDecision decision =
        slots_.admit(peer_address, trusted, has_sent ? detail::Phase::partial : detail::Phase::silent);
    if (!decision.admitted()) {
      refused_.fetch_add(1);
      // A reset rather than a FIN: no TIME_WAIT left behind for each of a flood's sockets.
      socket.set_option(asio::socket_base::linger(true, 0), ec);
      socket.close(ec);
      continue;
    }
    if (decision.outcome == detail::SlotDecision::Outcome::admitted_evicting) close_for_room(decision.evicted);
    socket.set_option(tcp::no_delay(true), ec);
    auto control = std::make_shared<ConnectionControl>();
    control->slot = decision.id;
    control->in_trusted_network = trusted && trust_.in_networks(peer_address);
    control->peer = std::move(peer_address);
    {
      std::lock_guard lock(connections_mutex_);
      open_.emplace(control->slot, control);
    }
    connections_.fetch_add(1);
    auto executor = socket.get_executor();
    asio::co_spawn(executor, run_connection(std::move(socket), std::move(control)), asio::detached);
  }
}

// The slots have let `slot` go already; its socket is closed on its own thread (or, if its
// connection has not started yet, as soon as it does).
void Server::Impl::close_for_room(std::uint64_t slot) {
  std::lock_guard lock(connections_mutex_);
  auto it = open_.find(slot);
  if (it == open_.end()) return;
  evicted_.fetch_add(1);
  it->second->evicted = true;
  if (it->second->cancel) it->second->cancel(true);
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
    if (held > chosen_peer_bytes ||
        (chosen != nullptr && held == chosen_peer_bytes && control->body_bytes.load() > chosen->body_bytes.load())) {
      chosen = control.get();
      chosen_peer_bytes = held;
    }
  }
  if (chosen == nullptr) return false;
  chosen->evicted = true;
  evicted_.fetch_add(1);
  if (chosen->cancel) chosen->cancel(true);
  return true;
}

}  // namespace dha::server
