#include "dha/status_writer/status_writer.hpp"

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include "dha/gates/reasons.hpp"
#include "dha/kube/json.hpp"
#include "dha/model/status_display.hpp"
#include "dha/status_writer/decision_status.hpp"
#include "dha/status_writer/event_messages.hpp"
#include "dha/status_writer/hold_conditions.hpp"
#include "dha/status_writer/metric_readings.hpp"
#include "dha/status_writer/status_update.hpp"
#include "dha/telemetry/controller_metrics.hpp"

namespace dha::status {
namespace {

using model::DecisionKind;

std::string key_of(const Report& r) { return r.ns + "/" + r.name; }

model::Condition condition(const char* type, bool status, std::string reason, std::string message, std::int64_t gen) {
  return model::Condition{type, status ? "True" : "False", std::move(reason), std::move(message), 0, gen};
}

// Freezes a tenant has to act on (or be told of), as opposed to brakes and windows that pass.
bool is_failure(const std::string& reason) {
  namespace r = gates::reasons;
  for (const char* failure : {r::kMetricUnavailable, r::kHealthUnknown, r::kInvalidMetricTarget, r::kGateError,
                              r::kQuorumExceedsQuota, r::kStuckScaling, r::kOwnershipConflict})
    if (reason == failure) return true;
  return false;
}

std::string joined(const std::vector<std::string>& causes) {
  std::string out;
  for (const auto& c : causes) out += (out.empty() ? "" : "; ") + c;
  return out;
}

// The lines kubectl get shows: target, metrics against their targets, the last decision.
void set_display(model::DhaStatus& s, const model::DhaSpec* spec, const std::string& summary) {
  if (spec != nullptr && spec->target_ref) s.target_display = model::target_display(*spec->target_ref);
  if (spec != nullptr) s.metrics_display = model::metrics_display(*spec, s.current_metrics);
  s.current_display = model::count_display(s.current_replicas);
  s.desired_display = model::count_display(s.desired_replicas);
  s.summary = summary;
}

// What ends a conflict: the count set back to our last write, or the DHA deleted (its finalizer
// removes the marker) and created again, which adopts the other writer's count.
std::string conflict_way_out(const std::optional<std::int32_t>& applied, std::int32_t current) {
  if (!applied) return "delete and re-create the DHA to adopt " + std::to_string(current);
  return "our last write was " + std::to_string(*applied) + "; set replicas back to " + std::to_string(*applied) +
         ", or delete and re-create the DHA to adopt " + std::to_string(current);
}

model::Condition* find(std::vector<model::Condition>& conditions, const char* type) {
  for (auto& c : conditions)
    if (c.type == type) return &c;
  return nullptr;
}

std::int64_t generation_of(const rapidjson::Value& obj) {
  const auto* g = kube::find_path(obj, {"metadata", "generation"});
  return g != nullptr && g->IsInt64() ? g->GetInt64() : 0;
}

}  // namespace

Report StatusWriter::open(const rapidjson::Value& dha, std::int64_t now) {
  Report r;
  r.dha = &dha;
  r.ns = kube::namespace_of(dha);
  r.name = kube::name_of(dha);
  r.now = now;
  r.generation = generation_of(dha);
  if (const auto* status = kube::find_path(dha, {"status"}); status != nullptr && status->IsObject()) {
    try {
      auto reading = model::read_status(*status);
      r.previous = std::move(reading.status);
      r.unreadable = std::move(reading.unreadable);
      for (const auto& field : r.unreadable) spdlog::warn("status field {} unreadable: {}", field.name, field.error);
    } catch (const std::exception& e) {
      r.unreadable.push_back({"status", e.what()});
      spdlog::warn("status unreadable: {}", e.what());
    }
  }
  r.stored = r.previous;
  if (unpersisted_.restore(key_of(r), r.previous.state))
    spdlog::info("status does not show our last decision state yet (a status write failed); using it");
  r.next = r.previous;
  return r;
}

void StatusWriter::stopped(Report& r, const std::string& reason, const std::string& message,
                           std::optional<std::int32_t> current, const model::DhaSpec* spec) {
  spdlog::info("not scaling: {}: {}", reason, message);
  auto& s = r.next;
  // A count not read this cycle is left out rather than kept: kubectl then prints <unknown> in
  // the Current and Desired columns, as for an HPA whose target is gone, instead of a count the
  // target may no longer have.
  s.current_replicas = current;
  s.desired_replicas = current;
  s.observed_generation = r.generation;
  // Nothing was measured this time: yesterday's values would read as today's.
  s.current_metrics.clear();
  const auto active = condition(kScalingActive, false, reason, message, r.generation);
  warn_if_new(r, active);
  model::set_condition(s.conditions, active, r.now);
  // AbleToScale follows with the same cause, so that REASON, the message and the frozen gauge agree.
  model::set_condition(s.conditions, condition(kAbleToScale, false, reason, message, r.generation), r.now);
  for (auto& c : s.conditions) c.observed_generation = r.generation;
  set_display(s, spec, "not scaling: " + reason + ": " + message);
  update_status(client_, metrics_, *r.dha, r.stored, s, r.unreadable);
  // The gauges keep the last count seen: a series that drops to 0 would read as a scale-in.
  const std::int32_t gauge = current.value_or(r.previous.current_replicas.value_or(0));
  metrics_.set_dha(r.ns, r.name, op::DhaGauges{gauge, gauge, false, true});
  metrics_.clear_metrics(r.ns, r.name);
}

void StatusWriter::ownership_conflict(const Report& r, const decide::Decision& d, const std::string& marker) {
  if (!d.ownership_conflict || conflict_already_reported(r.previous)) return;
  event(*r.dha, kube::EventType::Warning, "OwnershipConflict",
        fmt::format("replicas changed to {} by a competing writer (marker=\"{}\"); not entering a write war: {}",
                    d.current_replicas, marker,
                    conflict_way_out(r.previous.state.last_applied_replicas, d.current_replicas)));
}

void StatusWriter::scaled(const Report& r, const decide::Decision& d, const std::string& target_kind,
                          const std::string& target_name) {
  const bool rollback = d.kind == DecisionKind::Rollback;
  // "New size: 4; reason: ..." is what the HPA says; ours names the numbers the same way.
  const std::string why = rollback || d.metrics.empty()
                              ? d.message
                              : metrics_summary(d) + " per read replica " +
                                    (d.desired_replicas > d.current_replicas ? "above" : "below") + " target";
  event(*r.dha, rollback ? kube::EventType::Warning : kube::EventType::Normal, rollback ? "Rollback" : "Scaled",
        fmt::format("{} {}/{} replicas {} -> {}; reason: {}", rollback ? "rolled back" : "scaled", target_kind,
                    target_name, d.current_replicas, d.desired_replicas, why));
}

void StatusWriter::patch_failed(const Report& r, const decide::Decision& d, const std::string& error) {
  event(*r.dha, kube::EventType::Warning, "PatchFailed", error);
  const bool limited = d.limited || d.ownership_conflict;
  metrics_.set_dha(r.ns, r.name, op::DhaGauges{d.current_replicas, d.current_replicas, limited, true});
  metrics_.count_decision(r.ns, r.name, std::string(model::to_string(d.kind)), "PatchFailed");
}

void StatusWriter::decided(Report& r, const model::DhaSpec& spec, const decide::Decision& d, const Causes& causes,
                           const model::Observation* observation) {
  if (const std::string msg = dry_run_event_message(spec, d, r.previous); !msg.empty())
    event(*r.dha, kube::EventType::Normal, "DryRunScale", msg);

  model::DhaStatus& s = r.next;
  store_in_status(s, d, r.now, r.generation);
  name_holds(s, d, r.previous, r.now, r.generation);
  if (model::Condition* limited = find(s.conditions, kScalingLimited);
      d.ownership_conflict && limited != nullptr && limited->reason == gates::reasons::kOwnershipConflict)
    limited->message = fmt::format("replicas changed to {} by a competing writer; {}", d.current_replicas,
                                   conflict_way_out(r.previous.state.last_applied_replicas, d.current_replicas));
  // Each metric as read, also when another one failed and the decision used none.
  s.current_metrics = metric_readings(spec, d, observation);
  model::set_condition(
      s.conditions, condition(kScalingActive, true, gates::reasons::kReady, "target is scalable", r.generation), r.now);
  if (model::Condition* able = find(s.conditions, kAbleToScale)) {
    // The gate that held the count says it with its numbers ("... (60s > 30s)").
    if (const model::TraceEntry* gate = s.last_decision ? model::deciding_gate(*s.last_decision) : nullptr;
        able->status == "False" && gate != nullptr && gate->reason == able->reason &&
        gate->message.size() > able->message.size() && gate->message.rfind(able->message, 0) == 0)
      able->message = gate->message;
    // A freeze for want of data says which object or query it could not read.
    const auto& named = d.reason == gates::reasons::kHealthUnknown       ? causes.health
                        : d.reason == gates::reasons::kMetricUnavailable ? causes.metrics
                                                                         : std::vector<std::string>{};
    if (able->status == "False" && !named.empty()) able->message += ": " + joined(named);
    // Another writer owns the count: that comes before any brake or window the chain reported.
    if (const model::Condition* limited = find(s.conditions, kScalingLimited);
        d.ownership_conflict && limited != nullptr && able->reason != gates::reasons::kOwnershipConflict) {
      const std::string message = limited->message;
      model::set_condition(s.conditions,
                           condition(kAbleToScale, false, gates::reasons::kOwnershipConflict, message, r.generation),
                           r.now);
      able = find(s.conditions, kAbleToScale);
    }
    if (able->status == "False" && is_failure(able->reason) && able->reason != gates::reasons::kOwnershipConflict)
      warn_if_new(r, *able);
  }
  for (auto& c : s.conditions) c.observed_generation = r.generation;
  set_display(s, &spec, status_summary(spec, s, d.current_replicas));
  keep_decision_time(r.previous, s);
  // Until the status write lands, this state exists only here; a write that throws leaves it
  // remembered for the next cycle.
  unpersisted_.remember(key_of(r), s.state);
  update_status(client_, metrics_, *r.dha, r.stored, s, r.unreadable);
  unpersisted_.forget(key_of(r));

  const model::Condition* limited = find(s.conditions, kScalingLimited);
  metrics_.set_dha(r.ns, r.name,
                   op::DhaGauges{d.current_replicas, d.desired_replicas,
                                 d.limited || d.ownership_conflict || (limited != nullptr && limited->status == "True"),
                                 !d.able_to_scale});
  metrics_.clear_metrics(r.ns, r.name);
  for (const auto& m : d.metrics)
    metrics_.set_metric(r.ns, r.name, std::string(model::to_string(m.type)), m.average, m.target);
  const std::string kind = telemetry::decision_kind_label(std::string(model::to_string(d.kind)), spec.dry_run);
  metrics_.count_decision(r.ns, r.name, kind, d.reason);
}

void StatusWriter::forget(const std::string& ns, const std::string& name) {
  unpersisted_.forget(ns + "/" + name);
  metrics_.forget(ns, name);
}

void StatusWriter::warn_if_new(const Report& r, const model::Condition& failing) {
  if (const auto* before = model::find_condition(r.stored.conditions, failing.type);
      before != nullptr && before->status == failing.status && before->reason == failing.reason &&
      before->message == failing.message)
    return;
  event(*r.dha, kube::EventType::Warning, failing.reason, failing.message);
}

void StatusWriter::event(const rapidjson::Value& dha, kube::EventType type, const std::string& reason,
                         const std::string& message) {
  spdlog::info("event {} {}: {}", type == kube::EventType::Warning ? "Warning" : "Normal", reason, message);
  events_.record(kube::ObjectReference::of(dha), type, reason, message);
}

}  // namespace dha::status
