#include "pipeline/history_cache.hpp"

#include <fmt/format.h>

namespace dha::pipeline {

std::shared_ptr<const HistoryOrReason> HistoryCache::get(const std::string& uid, const std::string& depends_on,
                                                         std::int64_t now, const Fetch& fetch) {
  const std::string key = uid + '\x1f' + depends_on;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();)
      it = now - it->second.used_at >= 2 * refresh_seconds_ ? entries_.erase(it) : std::next(it);
    for (auto it = last_fetch_by_uid_.begin(); it != last_fetch_by_uid_.end();)
      it = now - it->second >= 2 * refresh_seconds_ ? last_fetch_by_uid_.erase(it) : std::next(it);
    const auto it = entries_.find(key);
    if (it != entries_.end() && fresh(it->second.fetched_at, now)) {
      it->second.used_at = now;
      return it->second.value;
    }
    if (const auto last = last_fetch_by_uid_.find(uid); last != last_fetch_by_uid_.end() && fresh(last->second, now)) {
      if (it != entries_.end()) {
        it->second.used_at = now;
        return it->second.value;
      }
      return std::make_shared<const HistoryOrReason>(fmt::format(
          "the metric history was read {} s ago for other metrics or another target; a DHA reads it at most once "
          "per {} s, next in {} s",
          now - last->second, refresh_seconds_, last->second + refresh_seconds_ - now));
    }
    last_fetch_by_uid_[uid] = now;  // taken before the fetch: a concurrent caller waits its turn
  }
  // Fetched without the lock: one DHA's slow source does not hold up the others' reconciles (the
  // controller never reconciles one DHA twice at once).
  auto value = std::make_shared<const HistoryOrReason>(fetch());
  const std::lock_guard<std::mutex> lock(mutex_);
  entries_[key] = Entry{now, now, value};
  return value;
}

std::size_t HistoryCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace dha::pipeline
