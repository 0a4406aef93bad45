#include "dha/status_writer/hold_conditions.hpp"

#include "dha/gates/reasons.hpp"
#include "dha/model/status_display.hpp"
#include "dha/status_writer/decision_status.hpp"

namespace dha::status {
namespace {

namespace reasons = gates::reasons;

// The last gate of the trace that changed the count with this reason.
const model::TraceEntry* changed_by(const std::vector<model::TraceEntry>& trace, const char* reason) {
  const model::TraceEntry* found = nullptr;
  for (const auto& e : trace)
    if (e.reason == reason && e.in != e.out) found = &e;
  return found;
}

std::string hold_words(const model::TraceEntry& e) {
  return e.gate + ": " + std::to_string(e.in) + " -> " + std::to_string(e.out) +
         (e.message.empty() ? "" : " (" + e.message + ")");
}

// Limits a freeze does not re-evaluate; they still clamp until a cycle runs the chain again.
bool is_clamping_limit(const std::string& reason) {
  for (const char* limit : {reasons::kAtLimit, reasons::kQuotaExceeded, reasons::kQuorumFloor, reasons::kStepLimited})
    if (reason == limit) return true;
  return false;
}

bool is_hold(const std::string& reason) {
  return reason == kScaleUpStabilized || reason == kScaleDownStabilized || reason == reasons::kStepLimited;
}

}  // namespace

void name_holds(model::DhaStatus& status, const decide::Decision& d, const model::DhaStatus& previous, std::int64_t now,
                std::int64_t generation) {
  const std::vector<model::TraceEntry>& trace = status.last_decision ? status.last_decision->trace : d.trace;
  const model::Condition* able = model::find_condition(status.conditions, kAbleToScale);
  if (const model::TraceEntry* window = changed_by(trace, reasons::kStabilized);
      window != nullptr && able != nullptr && able->status == "True" && able->reason == reasons::kReady) {
    // The window held a rise (raw above what it let through) or a fall (raw below).
    const char* reason = window->in > window->out ? kScaleUpStabilized : kScaleDownStabilized;
    model::set_condition(status.conditions,
                         model::Condition{kAbleToScale, "True", reason, hold_words(*window), 0, generation}, now);
  }
  const model::Condition* limited = model::find_condition(status.conditions, kScalingLimited);
  if (limited == nullptr || limited->status != "False") return;
  if (const model::TraceEntry* step = changed_by(trace, reasons::kStepLimited)) {
    model::set_condition(
        status.conditions,
        model::Condition{kScalingLimited, "True", reasons::kStepLimited, hold_words(*step), 0, generation}, now);
    return;
  }
  const model::Condition* before = model::find_condition(previous.conditions, kScalingLimited);
  if (d.kind == model::DecisionKind::Freeze && before != nullptr && before->status == "True" &&
      is_clamping_limit(before->reason)) {
    // Kept as it was, transition time included: the limit never stopped clamping.
    for (auto& c : status.conditions)
      if (c.type == kScalingLimited) {
        c = *before;
        c.observed_generation = generation;
      }
  }
}

std::string status_summary(const model::DhaSpec& spec, const model::DhaStatus& status, std::int32_t current) {
  if (!status.last_decision) return "";
  const model::LastDecision& last = *status.last_decision;
  std::string out = model::decision_summary(last, current);
  // A dry run changes nothing: its summary says what it would have done.
  if (spec.dry_run && (last.kind == model::DecisionKind::Scale || last.kind == model::DecisionKind::Rollback) &&
      out.rfind("would ", 0) != 0)
    out = "would " + out;
  for (const char* type : {kAbleToScale, kScalingLimited})
    if (const model::Condition* c = model::find_condition(status.conditions, type); c != nullptr && is_hold(c->reason))
      out += "; " + c->reason + ": " + c->message;
  return out;
}

}  // namespace dha::status
