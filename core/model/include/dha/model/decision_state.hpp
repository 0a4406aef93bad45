#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// What the decision needs across cycles (docs/behaviour.md#status-persisted-state). Times are seconds since the epoch;
// in DHA status they are RFC3339 (see status.hpp), in the `decide` command plain numbers.
namespace dha::model {

struct Recommendation {
  std::int64_t time = 0;
  std::int32_t replicas = 0;
  bool operator==(const Recommendation&) const = default;
};

struct Backoff {
  std::int32_t replicas = 0;  // the size that did not converge
  std::int64_t until = 0;     // a Scale to `replicas` is held while now < until
  std::int32_t count = 1;     // consecutive failures at this size
  bool operator==(const Backoff&) const = default;
};

// The load seen at a cycle, in read replicas at target (the largest over the metrics).
struct Demand {
  std::int64_t time = 0;
  double read_replicas = 0;
  bool operator==(const Demand&) const = default;
};

struct DecisionState {
  std::vector<Recommendation> recommendations;  // oldest first
  std::optional<std::int64_t> in_flight_since;  // set only by our own patch, cleared on convergence
  std::optional<std::int32_t> last_applied_replicas;
  std::optional<std::int32_t> last_converged_replicas;
  std::optional<Backoff> backoff;
  std::optional<std::int64_t> last_scale_time;
  // Kept by the Adaptive policy only (absent otherwise): the previous cycle's demand, for a trend
  // and to confirm an overload, and how long our last scale-up took to become ready.
  std::optional<Demand> last_demand;
  std::optional<std::int64_t> ready_seconds;
  bool operator==(const DecisionState&) const = default;
};

// The `decide` command's `state` object (times as numbers). Throws InputError naming the field.
DecisionState parse_decision_state(const rapidjson::Value& v, const std::string& path = "state");
rapidjson::Value decision_state_to_json(const DecisionState& state, rapidjson::Document::AllocatorType& alloc);

}  // namespace dha::model
