#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "dha/model/decision_state.hpp"

namespace dha::model {

// status.recommendations holds at most this many entries (the CRD's maxItems).
inline constexpr std::size_t kMaxRecommendations = 64;

// Appends (now, replicas), drops entries older than `now - longest_window` (an entry exactly at
// the cutoff stays: windows include age == window), and bounds the list to kMaxRecommendations.
//
// Bounding without changing stabilization: every window is a suffix of the history in time (all
// entries newer than some cutoff). An entry is redundant for the scale-up window (a minimum) if a
// later entry is <= it, and for the scale-down window (a maximum) if a later entry is >= it: every
// suffix holding it also holds that later entry. Dropping entries redundant for both leaves every
// future min and max unchanged, exactly. Only if more than kMaxRecommendations entries are still
// needed (over 32 distinct counts inside one window) is the oldest folded into the next, which
// keeps the higher of the two counts: a window's maximum never drops (scale-down never comes
// sooner); a window that began between the two may see a higher minimum.
void record_recommendation(std::vector<Recommendation>& history, std::int64_t now, std::int32_t replicas,
                           std::int64_t longest_window);

// Drops the entries redundant for both windows (above): every window's minimum and maximum stay
// exactly what they were. Entries must be oldest first.
void drop_redundant_recommendations(std::vector<Recommendation>& history);

// The pruning and bounding steps alone (no append).
void prune_recommendations(std::vector<Recommendation>& history, std::int64_t now, std::int64_t longest_window);

}  // namespace dha::model
