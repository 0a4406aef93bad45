#include "connection_slots.hpp"

#include <algorithm>

namespace dha::server::detail {

ConnectionSlots::ConnectionSlots(SlotLimits limits) : limits_(limits) {
  limits_.reserved_for_trusted = std::min(limits_.reserved_for_trusted, limits_.max_connections);
}

std::map<std::uint64_t, std::uint64_t>* ConnectionSlots::phase_set(Peer& peer, Phase phase) {
  if (phase == Phase::silent) return &peer.silent;
  if (phase == Phase::partial) return &peer.partial;
  return nullptr;
}

void ConnectionSlots::unindex(Peer& peer) {
  for (Phase phase : {Phase::silent, Phase::partial}) {
    const auto& set = *phase_set(peer, phase);
    if (!set.empty()) index(peer.trusted, phase).erase(Rank{peer.connections, set.begin()->first, &peer});
  }
}

void ConnectionSlots::reindex(Peer& peer) {
  for (Phase phase : {Phase::silent, Phase::partial}) {
    const auto& set = *phase_set(peer, phase);
    if (!set.empty()) index(peer.trusted, phase).insert(Rank{peer.connections, set.begin()->first, &peer});
  }
}

std::uint64_t ConnectionSlots::victim_among(bool trusted, std::size_t newcomer_holds) {
  // Silent connections go first: a flood of idle sockets is all silent, while a legitimate
  // client is silent only for the moment between its connect and its first byte.
  for (Phase phase : {Phase::silent, Phase::partial}) {
    const Index& candidates = index(trusted, phase);
    if (candidates.empty()) continue;
    const Rank& top = *candidates.begin();
    // Only a peer holding more than the newcomer's loses one: peers with equal shares do
    // not take turns closing each other's connections for ever.
    if (top.connections <= newcomer_holds) continue;
    const Peer& peer = *top.peer;
    return (phase == Phase::silent ? peer.silent : peer.partial).begin()->second;
  }
  return 0;
}

SlotDecision ConnectionSlots::admit(const std::string& address, bool trusted, Phase initial) {
  std::lock_guard lock(mutex_);
  SlotDecision decision;
  auto [it, inserted] = peers_.try_emplace(address);
  Peer& peer = it->second;
  if (inserted) {
    peer.address = address;
    peer.trusted = trusted;
  } else if (peer.trusted != trusted) {
    // Its trust changed since its other connections came (it sent a valid review since).
    unindex(peer);
    (peer.trusted ? open_trusted_ : open_untrusted_) -= peer.connections;
    peer.trusted = trusted;
    (peer.trusted ? open_trusted_ : open_untrusted_) += peer.connections;
    reindex(peer);
  }
  const std::size_t cap = trusted ? limits_.max_per_trusted_peer : limits_.max_per_peer;
  if (peer.connections >= cap) {
    if (peer.connections == 0) peers_.erase(it);
    decision.outcome = SlotDecision::Outcome::refused_peer_share;
    return decision;
  }
  const std::size_t total = open_trusted_ + open_untrusted_;
  const bool room = total < limits_.max_connections &&
                    (trusted || open_untrusted_ < limits_.max_connections - limits_.reserved_for_trusted);
  if (!room) {
    std::uint64_t victim = 0;
    if (closing_.size() < limits_.max_closing) {
      // A trusted newcomer may take any untrusted connection's slot, and a trusted one's only
      // from a trusted peer holding more than it.
      victim = trusted ? victim_among(false, 0) : victim_among(false, peer.connections);
      if (victim == 0 && trusted) victim = victim_among(true, peer.connections);
    }
    if (victim == 0) {
      if (peer.connections == 0) peers_.erase(it);
      decision.outcome = SlotDecision::Outcome::refused_full;
      return decision;
    }
    remove(victim, true);
    decision.outcome = SlotDecision::Outcome::admitted_evicting;
    decision.evicted = victim;
  } else {
    decision.outcome = SlotDecision::Outcome::admitted;
  }
  unindex(peer);
  const std::uint64_t id = ++next_id_;
  const std::uint64_t since = ++next_since_;
  connections_.emplace(id, Connection{&peer, initial, since});
  if (auto* set = phase_set(peer, initial)) set->emplace(since, id);
  ++peer.connections;
  ++(peer.trusted ? open_trusted_ : open_untrusted_);
  reindex(peer);
  decision.id = id;
  return decision;
}

void ConnectionSlots::set_phase(std::uint64_t id, Phase phase) {
  std::lock_guard lock(mutex_);
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Connection& connection = it->second;
  Peer& peer = *connection.peer;
  unindex(peer);
  if (auto* set = phase_set(peer, connection.phase)) set->erase(connection.since);
  connection.phase = phase;
  connection.since = ++next_since_;
  if (auto* set = phase_set(peer, phase)) set->emplace(connection.since, id);
  reindex(peer);
}

void ConnectionSlots::remove(std::uint64_t id, bool evicted) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  Peer& peer = *it->second.peer;
  unindex(peer);
  if (auto* set = phase_set(peer, it->second.phase)) set->erase(it->second.since);
  --peer.connections;
  --(peer.trusted ? open_trusted_ : open_untrusted_);
  reindex(peer);
  connections_.erase(it);
  if (evicted) closing_.insert(id);
  if (peer.connections == 0) {
    const std::string address = peer.address;  // erase() must not read the key it destroys
    peers_.erase(address);
  }
}

void ConnectionSlots::release(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  if (closing_.erase(id) > 0) return;
  remove(id, false);
}

std::size_t ConnectionSlots::open() const {
  std::lock_guard lock(mutex_);
  return open_trusted_ + open_untrusted_;
}

std::size_t ConnectionSlots::open_of(const std::string& address) const {
  std::lock_guard lock(mutex_);
  auto it = peers_.find(address);
  return it == peers_.end() ? 0 : it->second.connections;
}

std::size_t ConnectionSlots::closing() const {
  std::lock_guard lock(mutex_);
  return closing_.size();
}

}  // namespace dha::server::detail
