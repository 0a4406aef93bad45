#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"

// How a DHA's state reads to a tenant: the strings of the kubectl get columns, the one-line
// summary of a decision, and a gate trace in words. One wording for the status writer and for
// the kubectl plugin, so what `kubectl get`, `describe` and `kubectl dha` say never disagrees.
namespace dha::model {

// What kubectl get (and HPA) shows for a value that was not observed.
inline constexpr std::string_view kUnknownValue = "<unknown>";

// "Postgres/db".
std::string target_display(const TargetRef& ref);

// One metric as current/target (type): "83/150 (ReadConnections)", "210m/250m
// (ReadCPUUtilization)", "65%/70% (ReadCPUUtilization)", "<unknown>/150 (ReadConnections)".
std::string metric_display(const MetricSpec& spec, const CurrentMetric* observed);

// Every spec metric, in spec order, joined by ", "; a metric missing from `observed` (matched by
// type) shows <unknown>.
std::string metrics_display(const DhaSpec& spec, const std::vector<CurrentMetric>& observed);

// A replica count for the Current and Desired columns: "5", or <unknown> when not observed.
// kubectl prints a missing field as an empty cell, so the columns read these strings.
std::string count_display(const std::optional<std::int32_t>& count);

// Whether a gate changed or held the count, or said more than "Pass" (or "Converged").
bool gate_acted(const TraceEntry& entry);

// The gate that decided: the first whose reason is the decision's, else the last that acted;
// nullptr when no gate acted.
const TraceEntry* deciding_gate(const LastDecision& decision);

// "Stabilization: 4 -> 3, StabilizationWindow: ..." for a gate that acted, "LagBrake: passed (...)"
// otherwise.
std::string trace_entry_words(const TraceEntry& entry);

// The decision in one line for status.summary: "scale 3 -> 4 (ReadConnections 210/150 per read
// replica)", "frozen at 3 by LagBrake (ReplicationLag): replication lag 45s > 30s with writes
// active", "no change at 3: ...".
std::string decision_summary(const LastDecision& decision, std::int32_t current_replicas);

}  // namespace dha::model
