#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "dha/decide/load_trace.hpp"

// A predictive DHA's metric history, fetched at most once per refresh period: a week of range
// queries is far more work than an instant read, and the daily pattern it shows does not change
// from one reconcile to the next. One entry per DHA uid; a new spec generation (another metric, a
// new target) fetches again at once.
namespace dha::pipeline {

inline constexpr std::int64_t kHistoryRefreshSeconds = 3600;

struct FetchedHistory {
  std::int64_t start = 0;  // unix seconds of the trace's time 0
  decide::LoadTrace trace;
};

// The history, or why there is none (kept as long as a history would be, so that a source that
// cannot answer is not asked again every reconcile).
using HistoryOrReason = std::variant<FetchedHistory, std::string>;

class HistoryCache {
 public:
  using Fetch = std::function<HistoryOrReason()>;

  explicit HistoryCache(std::int64_t refresh_seconds = kHistoryRefreshSeconds) : refresh_seconds_(refresh_seconds) {}

  // The entry for (uid, generation) fetched at or after now − refresh; otherwise calls `fetch` and
  // keeps its answer. Entries not used for two refresh periods (deleted DHAs) are dropped.
  std::shared_ptr<const HistoryOrReason> get(const std::string& uid, std::int64_t generation, std::int64_t now,
                                             const Fetch& fetch);

  std::size_t size() const;

 private:
  struct Entry {
    std::int64_t generation = 0;
    std::int64_t fetched_at = 0;
    std::int64_t used_at = 0;
    std::shared_ptr<const HistoryOrReason> value;
  };

  std::int64_t refresh_seconds_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
};

}  // namespace dha::pipeline
