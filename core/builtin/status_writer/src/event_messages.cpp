#include "dha/status_writer/event_messages.hpp"

#include <fmt/format.h>

#include <cmath>

#include "dha/gates/reasons.hpp"
#include "dha/status_writer/decision_status.hpp"

namespace dha::status {
namespace {

using model::DecisionKind;

std::string format_number(double v) {
  if (std::abs(v - std::round(v)) < 1e-9 && std::abs(v) < 1e15)
    return fmt::format("{}", static_cast<long long>(std::round(v)));
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::string metrics_summary(const decide::Decision& d) {
  std::string out;
  for (const auto& m : d.metrics)
    out += (out.empty() ? "" : ", ") + std::string(model::to_string(m.type)) + " " + format_number(m.average) + "/" +
           format_number(m.target);
  return out;
}

std::string dry_run_event_message(const model::DhaSpec& spec, const decide::Decision& d,
                                  const model::DhaStatus& previous) {
  if (!spec.dry_run) return {};
  if (d.kind != DecisionKind::Scale && d.kind != DecisionKind::Rollback) return {};
  if (d.desired_replicas == d.current_replicas) return {};
  if (previous.last_decision && previous.desired_replicas == d.desired_replicas) return {};
  const std::string verb = d.kind == DecisionKind::Rollback ? "roll back" : "scale";
  std::string why;
  if (d.kind == DecisionKind::Rollback || d.limited) {
    why = d.message;
  } else {
    why = metrics_summary(d);
  }
  return fmt::format("would {} {} -> {}: {}", verb, d.current_replicas, d.desired_replicas, why);
}

bool conflict_already_reported(const model::DhaStatus& previous) {
  const auto* c = model::find_condition(previous.conditions, kScalingLimited);
  return c != nullptr && c->status == "True" && c->reason == gates::reasons::kOwnershipConflict;
}

}  // namespace dha::status
