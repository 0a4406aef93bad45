#pragma once

// The operator's HTTPS/HTTP server: Boost.Asio + Beast + OpenSSL behind a pimpl.
//
// What it guarantees:
//  - TLS 1.2 or newer, ALPN offers http/1.1 only (no HTTP/2: Rapid-Reset mitigation);
//  - HTTP/1.1 keep-alive; header and body size limits (431 / 413), the body limit per route
//    and checked from the header before any of the body is read; handshake, read, write and
//    idle timeouts, the first request's counted from accept;
//  - it keeps accepting when all `max_connections` are taken, and decides each newcomer at
//    once (never leaving it in the kernel's listen backlog behind a flood): a free slot; or
//    the oldest connection that has not started a request, of the peer holding the most
//    (more than the newcomer's peer), is closed to make room; or the newcomer is closed.
//    Connections that sent nothing go before ones in the middle of a handshake or header; a
//    request being served is never cut. `reserved_connections` are kept for trusted peers
//    (`trusted_networks`, or when none are given the few addresses that sent a request its
//    route vouched for, see Response::vouches_for_peer), whose connections are never closed
//    for an untrusted newcomer. Each untrusted peer address holds at most
//    `max_connections_per_peer` connections (more are closed at once). A connection that sends
//    nothing is closed after `first_byte_timeout`. Bodies are buffered only within a budget
//    per peer and in total: when the total is spent, the body being read for the peer holding
//    the most (if more than the newcomer) is cut, else 503; the authorizer runs before a body
//    is read. What this does not give: a client with more addresses than the server has
//    slots still makes every newcomer race it for one; a NetworkPolicy keeping other clients
//    away is what does (see docs/webhook.md);
//  - tls.crt / tls.key re-read from `cert_dir` when they change on disk (cert-manager
//    rotation): new connections get the new pair, open ones keep theirs, nothing is dropped;
//    a half-written or mismatched pair is ignored until a valid one appears; the client CA
//    file (TlsOptions::client_ca_file) likewise;
//  - with a client CA, a client without a certificate it verifies fails the TLS handshake and
//    never reaches a route; one that passes is trusted with reserved slots as a vouched-for
//    peer is (when the server is told no trusted networks);
//  - graceful stop: no new connections, idle keep-alive connections closed, in-flight requests
//    answered (with `Connection: close`) until the grace period ends.

#include "dha/server/http.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dha::server {

using namespace std::chrono_literals;

struct TlsOptions {
  std::filesystem::path cert_dir;                  // --cert-dir
  std::string cert_file = "tls.crt";               // inside cert_dir
  std::string key_file = "tls.key";                // inside cert_dir
  std::chrono::milliseconds reload_interval = 1s;  // how often the files are checked
  // A PEM bundle of CAs: every client must present a certificate that chains to one of them
  // and may authenticate a TLS client (extended key usage clientAuth, when it has one), or its
  // handshake fails. Re-read with the certificate. Empty: no client certificate is asked for.
  std::optional<std::filesystem::path> client_ca_file = std::nullopt;
  // With client_ca_file, when not empty: the client certificate's subject common name or one
  // of its DNS subjectAltNames must be one of these, exactly.
  std::vector<std::string> client_names = {};
};

struct ServerOptions {
  std::string name = "server";    // used in log lines and errors
  std::string host = "0.0.0.0";   // IPv4 or IPv6 literal
  std::uint16_t port = 0;         // 0 picks a free port; see Server::port()
  std::optional<TlsOptions> tls;  // empty = plain HTTP (health probes)
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 7 * 1024 * 1024;  // for routes that set no limit of their own
  // A request's deadlines start when the connection is accepted (the TLS handshake counts
  // against them) and, for later requests on a keep-alive connection, at their first byte: a
  // client sending slowly cannot stretch them.
  std::chrono::milliseconds first_byte_timeout = 2s;  // from accept until the client sends something
  // Linux TCP_DEFER_ACCEPT: a connection is accepted only once it has sent something, or after
  // about this long (then first_byte_timeout applies). Silent connections then wait in the
  // kernel's SYN queue (the listen backlog's size; past it SYN cookies admit them at once, as
  // without this) and cost the server nothing. 0 = off.
  std::chrono::seconds defer_accept = 0s;
  std::chrono::milliseconds handshake_timeout = 10s;
  std::chrono::milliseconds header_timeout = 5s;  // until the request's header is complete
  std::chrono::milliseconds read_timeout = 10s;   // until its body is complete
  std::chrono::milliseconds write_timeout = 10s;
  std::chrono::milliseconds idle_timeout = 90s;  // keep-alive wait for the next request
  std::size_t max_connections = 1024;
  // Of max_connections, kept for trusted peers (at most half of max_connections is kept).
  std::size_t reserved_connections = 128;
  std::size_t max_connections_per_peer = 16;  // an untrusted peer address
  std::size_t max_connections_per_trusted_peer = 128;
  // Networks ("10.0.0.0/24", "fd00::/64", bare addresses) whose peers are trusted. Empty: the
  // server learns up to `max_learned_trusted_peers` addresses from vouched-for requests, each
  // forgotten after `learned_trust_for` without one.
  std::vector<std::string> trusted_networks;
  std::size_t max_learned_trusted_peers = 4;
  std::chrono::milliseconds learned_trust_for = 10min;
  // Request bodies held in memory at once, whatever their routes allow one by one: the chart
  // gives the pod 128 MiB in all.
  std::size_t max_body_bytes_in_flight = 32 * 1024 * 1024;
  std::size_t max_body_bytes_in_flight_per_peer = 8 * 1024 * 1024;
  // Worker threads, each running its own event loop (like nginx's worker processes): a
  // connection stays on the worker it was dealt to (round-robin), so a handler that blocks
  // holds up only that worker's connections. One more thread accepts connections.
  unsigned threads = 2;
  Authorizer authorizer;  // empty = every request is routed
};

// A bind address as the flags spell it: ":8443", "127.0.0.1:9443", "[::1]:8081".
// "0" (and "") mean "disabled" and give std::nullopt; anything else malformed throws
// std::invalid_argument.
struct BindAddress {
  std::string host;
  std::uint16_t port = 0;
};
std::optional<BindAddress> parse_bind_address(std::string_view text);

class Server {
 public:
  // Throws std::invalid_argument naming a malformed entry of `trusted_networks`.
  Server(ServerOptions options, Router router);
  ~Server();  // stops with no grace period if still running
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Loads the certificate (TLS mode), binds and starts serving. Throws std::runtime_error with
  // the address or the certificate path in the message when that fails.
  void start();
  // The bound port (useful with port 0). Valid after start().
  std::uint16_t port() const;
  // Graceful stop; idempotent. Returns when every connection is closed.
  void stop(std::chrono::milliseconds grace = 5s);

  std::size_t active_connections() const;
  // Successful certificate reloads since start (the first load not counted).
  std::uint64_t certificate_reloads() const;
  // Connections closed at accept: their peer held its share already, or the server was full
  // and nobody could be closed for them.
  std::uint64_t refused_connections() const;
  // Connections closed to make room for new ones while all were open.
  std::uint64_t evicted_connections() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dha::server
