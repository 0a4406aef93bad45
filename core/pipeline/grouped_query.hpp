#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "pipeline/metric_query.hpp"
#include "tenancy/query_template.hpp"

// Grouped observation: one namespace-wide query per signal that answers for every target of an
// engine kind at once (the adapter's sdk::GroupedQueries), fetched once per cycle and fanned out to
// each DHA by the labels that name its target. A target reads exactly what its per-target query
// would: the same series combined the same way, the same causes when there are none
// (docs/behaviour.md#observe-grouped).
namespace dha::pipeline {

// What makes two reconciles' grouped queries the same question: the endpoint is chosen by the
// namespace and its monitoring namespace, the query text by the adapter for the kind and signal.
struct GroupedQueryKey {
  std::string namespace_name;
  std::optional<std::string> monitoring_namespace;
  std::string kind;  // apiGroup/Kind of the targets
  std::string what;  // the signal ("ReadConnections", "lag", "write activity")
  std::string query_template;
  // clang-tidy 14 reads the defaulted <=>'s comparison with 0 as a null pointer constant.
  auto operator<=>(const GroupedQueryKey&) const = default;  // NOLINT(modernize-use-nullptr)
};

// Grouped answers shared by the reconciles that ask the same question close together. An answer
// serves for `max_age_seconds` of the pipeline's wall clock from when it was asked for; after
// that the next reconcile asks again. A namespace's DHAs come due together (cycle_phase.hpp), so
// one answer serves them all and none decides on a reading older than the max age. 0 shares
// nothing: every reconcile asks its own grouped query. Concurrent reconciles asking the same key
// wait for the one query in flight. Thread-safe.
class GroupedAnswers {
 public:
  explicit GroupedAnswers(std::int64_t max_age_seconds) : max_age_seconds_(max_age_seconds) {}

  // The answer for `key` at `now_seconds`; `fetch` runs when there is none younger than the max
  // age, and `fetched` tells whether it ran in this call (to count queries sent).
  std::shared_ptr<const SeriesAnswer> get(const GroupedQueryKey& key, std::int64_t now_seconds,
                                          const std::function<SeriesAnswer()>& fetch, bool& fetched);

  // Answers kept (for tests: expired ones are dropped, so a namespace that is gone costs nothing).
  std::size_t size() const;

 private:
  using Answer = std::shared_ptr<const SeriesAnswer>;
  struct Entry {
    std::int64_t asked_at;
    std::shared_future<Answer> answer;
  };
  bool fresh(const Entry& e, std::int64_t now) const {
    return now >= e.asked_at && now - e.asked_at < max_age_seconds_;
  }

  const std::int64_t max_age_seconds_;
  mutable std::mutex mu_;
  std::optional<std::int64_t> swept_at_;  // when expired answers were last dropped
  std::map<GroupedQueryKey, Entry> answers_;
};

// The values the `by` labels have in a grouped answer for `target` (${name}, ${release} and
// ${namespace} substituted verbatim: they are compared, never sent); nullopt when a value names
// an unknown placeholder.
std::optional<std::map<std::string, std::string>> target_label_values(const std::map<std::string, std::string>& by,
                                                                      const tenancy::TargetLabels& target);

// Whether the grouped answer speaks for each target as its own query would. A failure of the
// connection (unavailable, timeout, unauthenticated) or "no series at all" does; an answer that
// its size, content or form spoiled for every target (too large, a non-finite series somewhere,
// a refusal, a bad query) does not, and each target asks its own query instead.
bool answers_for_each_target(const SeriesAnswer& grouped);

// One target's reading from a grouped answer: the series whose labels have `values`, combined as
// `how` says; the grouped answer's failure when it has no series at all.
MetricQueryResult select_target(const SeriesAnswer& grouped, const std::map<std::string, std::string>& values,
                                Aggregation how, const std::string& what);

}  // namespace dha::pipeline
