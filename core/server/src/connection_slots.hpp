#pragma once

// Who holds the server's connection slots, and what happens when a client connects while
// they are all taken. Plain C++ and thread-safe; the accept loop asks it about every new
// connection and the connections report what they are doing.
//
// The server keeps accepting when it is full: the kernel's listen backlog is first come,
// first served, so a client that waits there waits behind every connection a flood has
// queued, for seconds. Instead each newcomer is decided at once: it gets a free slot; or the
// oldest connection that has not started a request, of the peer holding the most, is closed
// to make room for it; or the newcomer itself is closed. A connection that has sent nothing
// goes before one that is in the middle of its handshake or header, and a request being
// served is never cut. Trusted peers (the API server) have slots reserved for them and are
// never closed to make room for an untrusted newcomer.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

namespace dha::server::detail {

struct SlotLimits {
  std::size_t max_connections = 0;
  // Of max_connections, how many only trusted peers may take.
  std::size_t reserved_for_trusted = 0;
  std::size_t max_per_peer = 0;
  std::size_t max_per_trusted_peer = 0;
  // Connections closed to make room but not yet gone: beyond this many, newcomers are closed
  // instead (a bound on the sockets the server holds over max_connections).
  std::size_t max_closing = 64;
};

// What a connection is doing, as far as making room goes.
enum class Phase {
  silent,   // nothing received since it was accepted or since its last response
  partial,  // some of a request has arrived (TLS handshake or header): not yet decided
  busy,     // its request header is complete: it is being served
};

struct SlotDecision {
  enum class Outcome {
    admitted,            // a free slot
    admitted_evicting,   // `evicted` was closed to make room
    refused_peer_share,  // the newcomer's peer holds its share already
    refused_full,        // nobody may be closed for it
  };
  Outcome outcome = Outcome::refused_full;
  std::uint64_t id = 0;       // the newcomer's, when admitted
  std::uint64_t evicted = 0;  // the connection to close, with admitted_evicting
  bool admitted() const { return outcome == Outcome::admitted || outcome == Outcome::admitted_evicting; }
};

class ConnectionSlots {
 public:
  explicit ConnectionSlots(SlotLimits limits);

  // `initial`: partial when the newcomer's first bytes have arrived already (it waited in the
  // backlog), else silent.
  SlotDecision admit(const std::string& peer, bool trusted, Phase initial = Phase::silent);
  // Ignored for a connection that was evicted or released already.
  void set_phase(std::uint64_t id, Phase phase);
  // When the connection is closed, evicted or not; idempotent.
  void release(std::uint64_t id);

  std::size_t open() const;
  std::size_t open_of(const std::string& peer) const;
  std::size_t closing() const;
  const SlotLimits& limits() const { return limits_; }

 private:
  struct Peer;
  struct Connection {
    Peer* peer = nullptr;
    Phase phase = Phase::silent;
    std::uint64_t since = 0;  // order of entering its phase: smaller is older
  };
  // The ranking of a peer among those with connections in one phase: most connections
  // first, then the one whose oldest such connection is oldest.
  struct Rank {
    std::size_t connections;
    std::uint64_t oldest;
    const Peer* peer;
    bool operator<(const Rank& other) const {
      if (connections != other.connections) return connections > other.connections;
      if (oldest != other.oldest) return oldest < other.oldest;
      return peer < other.peer;
    }
  };
  struct Peer {
    std::string address;
    bool trusted = false;
    std::size_t connections = 0;
    std::map<std::uint64_t, std::uint64_t> silent;   // since -> id
    std::map<std::uint64_t, std::uint64_t> partial;  // since -> id
  };
  using Index = std::set<Rank>;

  Index& index(bool trusted, Phase phase) { return indexes_[trusted ? 1 : 0][phase == Phase::silent ? 0 : 1]; }
  void unindex(Peer& peer);
  void reindex(Peer& peer);
  // The connection to close for a newcomer whose peer holds `newcomer_holds`; 0 for none.
  std::uint64_t victim_among(bool trusted, std::size_t newcomer_holds);
  void remove(std::uint64_t id, bool evicted);
  std::map<std::uint64_t, std::uint64_t>* phase_set(Peer& peer, Phase phase);

  SlotLimits limits_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Peer> peers_;
  std::unordered_map<std::uint64_t, Connection> connections_;
  std::set<std::uint64_t> closing_;  // evicted, not released yet
  Index indexes_[2][2];              // [trusted][silent, partial]
  std::size_t open_trusted_ = 0;
  std::size_t open_untrusted_ = 0;
  std::uint64_t next_id_ = 0;
  std::uint64_t next_since_ = 0;
};

}  // namespace dha::server::detail
