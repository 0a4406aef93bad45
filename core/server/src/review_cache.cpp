#include "dha/server/review_cache.hpp"

#include <openssl/evp.h>

#include <algorithm>

namespace dha::server {

namespace {

using Clock = std::chrono::steady_clock;

// The cache key: a digest of the token (never the token itself) and the path.
std::string key_of(std::string_view token, std::string_view path) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(token.data(), token.size(), digest, &length, EVP_sha256(), nullptr);
  std::string key(reinterpret_cast<const char*>(digest), length);
  key += ' ';
  key += path;
  return key;
}

}  // namespace

ReviewCache::Entry* ReviewCache::Side::find(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  return &it->second->second;
}

void ReviewCache::Side::put(const std::string& key, Entry entry) {
  if (capacity_ == 0) return;
  if (Entry* existing = find(key)) {
    *existing = std::move(entry);
    return;
  }
  if (index_.size() >= capacity_) {
    index_.erase(order_.back().first);
    order_.pop_back();
  }
  order_.emplace_front(key, std::move(entry));
  index_.emplace(key, order_.begin());
}

void ReviewCache::Side::erase(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) return;
  order_.erase(it->second);
  index_.erase(it);
}

ReviewCache::ReviewCache(std::chrono::milliseconds ttl, std::size_t max_allowed, std::size_t max_refused)
    : ttl_(ttl), allowed_(max_allowed), refused_(max_refused) {}

bool ReviewCache::lookup(std::string_view token, std::string_view path, AuthorizationResult& out) {
  if (ttl_.count() <= 0) return false;
  const std::string key = key_of(token, path);
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  for (Side* side : {&allowed_, &refused_}) {
    Entry* entry = side->find(key);
    if (entry == nullptr) continue;
    if (entry->expires <= now) {
      side->erase(key);
      return false;
    }
    out = entry->verdict;
    return true;
  }
  return false;
}

void ReviewCache::store(std::string_view token, std::string_view path, const AuthorizationResult& verdict) {
  if (ttl_.count() <= 0) return;
  const std::string key = key_of(token, path);
  std::lock_guard lock(mutex_);
  // A token whose verdict changed leaves the other side.
  (verdict.allowed ? refused_ : allowed_).erase(key);
  (verdict.allowed ? allowed_ : refused_).put(key, Entry{verdict, Clock::now() + ttl_});
}

std::size_t ReviewCache::allowed_entries() const {
  std::lock_guard lock(mutex_);
  return allowed_.size();
}

std::size_t ReviewCache::refused_entries() const {
  std::lock_guard lock(mutex_);
  return refused_.size();
}

AttemptLimiter::AttemptLimiter(Limits limits) : limits_(limits) {
  total_.tokens = limits_.total_burst;
  total_.last = Clock::now();
}

bool AttemptLimiter::take(Bucket& bucket, double rate, double burst, double cost, Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
  bucket.tokens = std::min(burst, bucket.tokens + std::max(0.0, elapsed) * rate);
  bucket.last = now;
  if (bucket.tokens < cost) return false;
  bucket.tokens -= cost;
  return true;
}

bool AttemptLimiter::try_take(const std::string& peer, double cost) {
  const auto now = Clock::now();
  std::lock_guard lock(mutex_);
  auto it = index_.find(peer);
  if (it == index_.end()) {
    if (index_.size() >= std::max<std::size_t>(1, limits_.max_peers)) {
      index_.erase(peers_.back().first);
      peers_.pop_back();
    }
    peers_.emplace_front(peer, Bucket{limits_.per_peer_burst, now});
    it = index_.emplace(peer, peers_.begin()).first;
  } else {
    peers_.splice(peers_.begin(), peers_, it->second);
  }
  Bucket& own = it->second->second;
  // The peer's budget first: a peer over its own share does not spend everyone's.
  if (!take(own, limits_.per_peer_per_second, limits_.per_peer_burst, cost, now)) return false;
  if (take(total_, limits_.total_per_second, limits_.total_burst, cost, now)) return true;
  own.tokens += cost;  // not spent: the request is refused anyway
  return false;
}

std::string peer_address(std::string_view remote) {
  if (!remote.empty() && remote.front() == '[') {
    const auto close = remote.find(']');
    return std::string(remote.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1));
  }
  const auto colon = remote.rfind(':');
  return std::string(colon == std::string_view::npos ? remote : remote.substr(0, colon));
}

}  // namespace dha::server
