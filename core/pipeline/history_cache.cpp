#include "pipeline/history_cache.hpp"

namespace dha::pipeline {

std::shared_ptr<const HistoryOrReason> HistoryCache::get(const std::string& uid, std::int64_t generation,
                                                         std::int64_t now, const Fetch& fetch) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();)
      it = now - it->second.used_at >= 2 * refresh_seconds_ ? entries_.erase(it) : std::next(it);
    const auto it = entries_.find(uid);
    // A clock that went back also refreshes: the age of the entry is then unknown.
    if (it != entries_.end() && it->second.generation == generation && now >= it->second.fetched_at &&
        now - it->second.fetched_at < refresh_seconds_) {
      it->second.used_at = now;
      return it->second.value;
    }
  }
  // Fetched without the lock: one DHA's slow source does not hold up the others' reconciles (the
  // controller never reconciles one DHA twice at once).
  auto value = std::make_shared<const HistoryOrReason>(fetch());
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_[uid] = Entry{generation, now, now, value};
  return value;
}

std::size_t HistoryCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace dha::pipeline
