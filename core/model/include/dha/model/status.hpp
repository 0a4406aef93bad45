#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/model/decision_state.hpp"

// The DHA `status` (the shared contract in the CRD): observed counts, the persisted decision
// state, the last decision with its gate trace, and the conditions. Times are seconds since the
// epoch here and RFC3339 strings in JSON.
namespace dha::model {

enum class DecisionKind { Scale, NoChange, Freeze, Rollback };
std::string_view to_string(DecisionKind kind);
std::optional<DecisionKind> parse_decision_kind(std::string_view text);

// One gate's effect on the proposal: "why this count" (docs/behaviour.md#status-last-decision).
struct TraceEntry {
  std::string gate;
  std::int32_t in = 0;
  std::int32_t out = 0;
  std::string reason;
  std::string message;
  bool operator==(const TraceEntry&) const = default;
};

struct LastDecision {
  std::int64_t time = 0;
  DecisionKind kind = DecisionKind::NoChange;
  std::int32_t raw_desired_replicas = 0;
  std::int32_t desired_replicas = 0;
  std::string reason;
  std::string message;
  std::vector<TraceEntry> trace;
  bool operator==(const LastDecision&) const = default;
};

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  std::int64_t last_transition_time = 0;
  std::int64_t observed_generation = 0;
  bool operator==(const Condition&) const = default;
};

struct CurrentMetric {
  std::string type;
  std::string average_value;  // a quantity string, see format_*_quantity
  bool operator==(const CurrentMetric&) const = default;
};

struct DhaStatus {
  std::int64_t observed_generation = 0;
  // Absent while the target could not be read (or never was): kubectl prints <unknown> in the
  // Current and Desired columns for a missing field, where a 0 or the last value would mislead.
  std::optional<std::int32_t> current_replicas;
  std::optional<std::int32_t> desired_replicas;
  DecisionState state;  // lastConverged/lastApplied/lastScaleTime/inFlightSince/recommendations/backoff
  std::vector<CurrentMetric> current_metrics;
  std::optional<LastDecision> last_decision;
  std::vector<Condition> conditions;
  // For kubectl get and describe only (see status_display.hpp); nothing reads them back.
  std::string target_display;   // "Postgres/db"
  std::string metrics_display;  // "83/150 (ReadConnections)"
  std::string current_display;  // "5", or "<unknown>" while currentReplicas is absent
  std::string desired_display;  // the same for desiredReplicas
  std::string summary;          // the last decision in one line
  bool operator==(const DhaStatus&) const = default;
};

// Parses a DHA `status` object (absent fields take their zero values); throws InputError naming
// the field, e.g. "status.backoff.until: not an RFC3339 time".
DhaStatus parse_status(const rapidjson::Value& v, const std::string& path = "status");

// A top-level status field that could not be read, and why.
struct UnreadableField {
  std::string name;   // "backoff"
  std::string error;  // "status.backoff.until: not an RFC3339 time"
};
struct StatusReading {
  DhaStatus status;                         // every field that could be read
  std::vector<UnreadableField> unreadable;  // the others, left at their zero values
};
// Like parse_status, field by field: one unreadable field does not lose the others.
StatusReading read_status(const rapidjson::Value& v, const std::string& path = "status");
rapidjson::Value status_to_json(const DhaStatus& status, rapidjson::Document::AllocatorType& alloc);

rapidjson::Value trace_to_json(const std::vector<TraceEntry>& trace, rapidjson::Document::AllocatorType& alloc);

// Sets a condition like meta.SetStatusCondition: lastTransitionTime changes only when the status
// flips (or the condition is new); reason, message and observedGeneration always update.
void set_condition(std::vector<Condition>& conditions, Condition condition, std::int64_t now);
const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);

}  // namespace dha::model
