#pragma once

// What an authorizer that asks the API server about bearer tokens needs to stay cheap under a
// flood of invented tokens: a verdict cache that the flood cannot empty, and limits on how
// often a peer, and everyone together, may make it ask.

#include "dha/server/http.hpp"

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace dha::server {

// Verdicts for (token, path), kept for `ttl` under a SHA-256 digest of the token (the token
// itself is never stored). Allowed and refused verdicts are kept apart, each side bounded and
// evicting its least recently used entry: invented tokens, all refused, churn only the refused
// side and never push out a scraper's allowed entry. Thread-safe.
class ReviewCache {
 public:
  ReviewCache(std::chrono::milliseconds ttl, std::size_t max_allowed, std::size_t max_refused);

  bool lookup(std::string_view token, std::string_view path, AuthorizationResult& out);
  void store(std::string_view token, std::string_view path, const AuthorizationResult& verdict);
  std::size_t allowed_entries() const;
  std::size_t refused_entries() const;

 private:
  struct Entry {
    AuthorizationResult verdict;
    std::chrono::steady_clock::time_point expires;
  };
  class Side {
   public:
    explicit Side(std::size_t capacity) : capacity_(capacity) {}
    Entry* find(const std::string& key);
    void put(const std::string& key, Entry entry);
    void erase(const std::string& key);
    std::size_t size() const { return index_.size(); }

   private:
    std::size_t capacity_;
    std::list<std::pair<std::string, Entry>> order_;  // most recently used first
    std::unordered_map<std::string, std::list<std::pair<std::string, Entry>>::iterator> index_;
  };

  std::chrono::milliseconds ttl_;
  mutable std::mutex mutex_;
  Side allowed_;
  Side refused_;
};

// Token buckets that say yes or no at once (never make a caller wait): one per peer address
// and one for all peers together. At most `max_peers` peers are tracked; beyond that the
// longest idle one is forgotten. Thread-safe.
class AttemptLimiter {
 public:
  struct Limits {
    double per_peer_per_second = 5;
    double per_peer_burst = 10;
    double total_per_second = 20;
    double total_burst = 40;
    std::size_t max_peers = 4096;
  };
  explicit AttemptLimiter(Limits limits);

  // Takes one attempt for `peer`; false when the peer's or the total budget is spent.
  bool try_take(const std::string& peer) { return try_take(peer, 1); }
  // An attempt that costs `cost` tokens (at least 1 and at most the bursts, or it never passes).
  bool try_take(const std::string& peer, double cost);

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point last;
  };
  static bool take(Bucket& bucket, double rate, double burst, double cost, std::chrono::steady_clock::time_point now);

  Limits limits_;
  std::mutex mutex_;
  Bucket total_;
  std::list<std::pair<std::string, Bucket>> peers_;  // most recently used first
  std::unordered_map<std::string, std::list<std::pair<std::string, Bucket>>::iterator> index_;
};

// The address part of Request::remote_address ("10.0.0.1:5312" → "10.0.0.1", "[::1]:80" and
// "::1:80" → "::1").
std::string peer_address(std::string_view remote_address);

}  // namespace dha::server
