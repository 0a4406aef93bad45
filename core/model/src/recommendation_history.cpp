#include "dha/model/recommendation_history.hpp"

#include <algorithm>
#include <limits>

namespace dha::model {
namespace {

std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  if (b > 0 && a < std::numeric_limits<std::int64_t>::min() + b) return std::numeric_limits<std::int64_t>::min();
  return a - b;
}

}  // namespace

void drop_redundant_recommendations(std::vector<Recommendation>& history) {
  std::vector<bool> keep(history.size(), false);
  std::int32_t later_min = std::numeric_limits<std::int32_t>::max();
  std::int32_t later_max = std::numeric_limits<std::int32_t>::min();
  bool any_later = false;
  for (std::size_t i = history.size(); i-- > 0;) {
    const std::int32_t v = history[i].replicas;
    const bool needed_for_min = !any_later || v < later_min;
    const bool needed_for_max = !any_later || v > later_max;
    keep[i] = needed_for_min || needed_for_max;
    later_min = std::min(later_min, v);
    later_max = std::max(later_max, v);
    any_later = true;
  }
  std::size_t out = 0;
  for (std::size_t i = 0; i < history.size(); ++i)
    if (keep[i]) history[out++] = history[i];
  history.resize(out);
}

void prune_recommendations(std::vector<Recommendation>& history, std::int64_t now, std::int64_t longest_window) {
  // Oldest first; a stable sort keeps the order of entries recorded at the same second.
  std::stable_sort(history.begin(), history.end(),
                   [](const Recommendation& a, const Recommendation& b) { return a.time < b.time; });
  const std::int64_t cutoff = saturating_sub(now, longest_window);
  std::erase_if(history, [cutoff](const Recommendation& r) { return r.time < cutoff; });
  if (history.size() <= kMaxRecommendations) return;
  drop_redundant_recommendations(history);
  // Still too many (over 32 distinct counts in one window): fold the oldest entry into the next
  // one, keeping the higher count at the later time. Dropping it instead would lose the highest
  // count of a falling history and let the scale-down window end early; folded, every window's
  // maximum stays at least what it was, so scaling down never comes sooner.
  while (history.size() > kMaxRecommendations) {
    history[1].replicas = std::max(history[0].replicas, history[1].replicas);
    history.erase(history.begin());
  }
}

void record_recommendation(std::vector<Recommendation>& history, std::int64_t now, std::int32_t replicas,
                           std::int64_t longest_window) {
  history.push_back({now, replicas});
  prune_recommendations(history, now, longest_window);
}

}  // namespace dha::model
