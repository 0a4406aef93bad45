#include "dha/model/status_display.hpp"

namespace dha::model {

std::string target_display(const TargetRef& ref) { return ref.kind + "/" + ref.name; }

std::string metric_display(const MetricSpec& spec, const CurrentMetric* observed) {
  std::string current =
      observed == nullptr || observed->average_value.empty() ? std::string(kUnknownValue) : observed->average_value;
  if (spec.is_utilization() && observed != nullptr && !observed->average_value.empty()) current += "%";
  return current + "/" + spec.target_text() + " (" + std::string(to_string(spec.type)) + ")";
}

std::string metrics_display(const DhaSpec& spec, const std::vector<CurrentMetric>& observed) {
  std::string out;
  for (const auto& m : spec.metrics) {
    const CurrentMetric* found = nullptr;
    for (const auto& o : observed)
      if (o.type == to_string(m.type)) found = &o;
    if (!out.empty()) out += ", ";
    out += metric_display(m, found);
  }
  return out;
}

std::string count_display(const std::optional<std::int32_t>& count) {
  return count ? std::to_string(*count) : std::string(kUnknownValue);
}

bool gate_acted(const TraceEntry& entry) {
  // "Converged" is a note of the convergence gate, like "Pass" of the others.
  return entry.in != entry.out || (entry.reason != "Pass" && entry.reason != "Converged" && !entry.reason.empty());
}

const TraceEntry* deciding_gate(const LastDecision& decision) {
  if (decision.reason != "Ready")
    for (const auto& e : decision.trace)
      if (e.reason == decision.reason) return &e;
  const TraceEntry* last = nullptr;
  for (const auto& e : decision.trace)
    if (e.in != e.out) last = &e;
  return last;
}

std::string trace_entry_words(const TraceEntry& entry) {
  if (!gate_acted(entry))
    return entry.gate + ": passed " + std::to_string(entry.out) +
           (entry.message.empty() ? "" : " (" + entry.message + ")");
  std::string out = entry.gate + ": " + std::to_string(entry.in) + " -> " + std::to_string(entry.out);
  if (entry.in == entry.out) out = entry.gate + ": kept " + std::to_string(entry.out);
  if (!entry.reason.empty()) out += ", " + entry.reason;
  if (!entry.message.empty()) out += ": " + entry.message;
  return out;
}

std::string decision_summary(const LastDecision& d, std::int32_t current) {
  const std::string at = std::to_string(current);
  switch (d.kind) {
    case DecisionKind::Scale:
    case DecisionKind::Rollback: {
      std::string head = d.kind == DecisionKind::Rollback ? "roll back " : "scale ";
      if (d.message.rfind("scale ", 0) == 0 || d.message.rfind("roll", 0) == 0) return d.message;
      return head + at + " -> " + std::to_string(d.desired_replicas) + (d.message.empty() ? "" : ": " + d.message);
    }
    case DecisionKind::Freeze: {
      const TraceEntry* gate = deciding_gate(d);
      // The gate's own message may carry the numbers ("... (60s > 30s)").
      const std::string& why =
          gate != nullptr && gate->message.size() > d.message.size() && gate->message.rfind(d.message, 0) == 0
              ? gate->message
              : d.message;
      return "frozen at " + at + (gate != nullptr ? " by " + gate->gate : "") + " (" + d.reason + ")" +
             (why.empty() ? "" : ": " + why);
    }
    case DecisionKind::NoChange:
      break;
  }
  if (d.message.rfind("no change", 0) == 0) return d.message;
  return "no change at " + at + (d.message.empty() ? "" : ": " + d.message);
}

}  // namespace dha::model
