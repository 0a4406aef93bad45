#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dha/model/status.hpp"

// A gate trace entry as one line of text, for status.lastDecision.gates: kubectl describe prints
// a list of strings one line each, where the same entry as an object takes five lines. The line
// holds every field, so it reads back as the entry it came from:
//   "LagBrake: 5 -> 4, ReplicationLag: replication lag above threshold with active writes (60s > 30s)"
//   "FailSafe: 5 -> 5, Pass: raw recommendation 5 from ReadConnections 116.667/100 per read replica"
namespace dha::model {

// "<gate>: <in> -> <out>[, <reason>][: <message>]".
std::string trace_line(const TraceEntry& entry);

// The entry a trace_line came from; nullopt when `line` is not one.
std::optional<TraceEntry> parse_trace_line(std::string_view line);

// Whether every entry reads back exactly from its line: no ':' in a gate or reason name (the
// separators), no newline in a gate (one line each). Gate reasons follow the condition-reason
// pattern and built-in gate names are words, so this fails only for hand-written statuses; the
// status then keeps the trace as objects.
bool fits_trace_lines(const std::vector<TraceEntry>& trace);

}  // namespace dha::model
