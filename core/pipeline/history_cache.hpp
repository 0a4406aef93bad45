#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <variant>

#include "dha/decide/load_trace.hpp"

// A predictive DHA's metric history, fetched at most once per refresh period per DHA: a week of
// range queries is far more work than an instant read, and the daily pattern it shows does not
// change from one reconcile to the next. An entry is keyed by the DHA's uid and by what the
// history depends on (its metric types and its target, as the caller spells them), not by the
// spec's generation: a spec write that changes neither (a new maxReplicas, a tenant rewriting
// the spec a hundred times) reads nothing again. One that does change them gets the history it
// needs at the DHA's next hourly read, not at once, so no sequence of spec writes makes a DHA
// fetch more than once per period; until then its entry says why it has no history.
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

  // The entry for (uid, depends_on) fetched at or after now − refresh; otherwise, when this uid
  // fetched nothing within the period, calls `fetch` and keeps its answer; otherwise the stale
  // entry for (uid, depends_on) if there is one, else a reason with the time of the next read.
  // Entries not used for two refresh periods (deleted DHAs, dependencies changed) are dropped.
  std::shared_ptr<const HistoryOrReason> get(const std::string& uid, const std::string& depends_on, std::int64_t now,
                                             const Fetch& fetch);

  std::size_t size() const;

 private:
  struct Entry {
    std::int64_t fetched_at = 0;
    std::int64_t used_at = 0;
    std::shared_ptr<const HistoryOrReason> value;
  };
  bool fresh(std::int64_t fetched_at, std::int64_t now) const {
    // A clock that went back also refreshes: the age of the entry is then unknown.
    return now >= fetched_at && now - fetched_at < refresh_seconds_;
  }

  std::int64_t refresh_seconds_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;  // by uid + '\x1f' + depends_on
  std::map<std::string, std::int64_t> last_fetch_by_uid_;
};

}  // namespace dha::pipeline
