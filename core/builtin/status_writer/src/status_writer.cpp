#include "dha/status_writer/status_writer.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "dha/gates/reasons.hpp"
#include "dha/kube/json.hpp"
#include "dha/status_writer/decision_status.hpp"
#include "dha/status_writer/event_messages.hpp"
#include "dha/status_writer/status_update.hpp"
#include "dha/telemetry/controller_metrics.hpp"

namespace dha::status {
namespace {

using model::DecisionKind;

std::string key_of(const Report& r) { return r.ns + "/" + r.name; }

model::Condition condition(const char* type, bool status, std::string reason, std::string message, std::int64_t gen) {
  return model::Condition{type, status ? "True" : "False", std::move(reason), std::move(message), 0, gen};
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
      r.previous = model::parse_status(*status);
    } catch (const std::exception& e) {
      spdlog::warn("status unreadable, starting from an empty one: {}", e.what());
    }
  }
  r.stored = r.previous;
  if (unpersisted_.restore(key_of(r), r.previous.state))
    spdlog::info("status does not show our last decision state yet (a status write failed); using it");
  r.next = r.previous;
  return r;
}

void StatusWriter::stopped(Report& r, const std::string& reason, const std::string& message,
                           std::optional<std::int32_t> current) {
  spdlog::info("not scaling: {}: {}", reason, message);
  auto& s = r.next;
  if (current) s.current_replicas = *current;
  s.desired_replicas = s.current_replicas;
  s.observed_generation = r.generation;
  model::set_condition(s.conditions, condition(kScalingActive, false, reason, message, r.generation), r.now);
  // AbleToScale follows, so that the condition and the frozen gauge agree.
  model::set_condition(s.conditions,
                       condition(kAbleToScale, false, reason, "target is not scalable; not scaling", r.generation),
                       r.now);
  for (auto& c : s.conditions) c.observed_generation = r.generation;
  update_status(client_, metrics_, *r.dha, r.stored, s);
  metrics_.set_dha(r.ns, r.name, op::DhaGauges{s.current_replicas, s.desired_replicas, false, true});
  metrics_.clear_metrics(r.ns, r.name);
}

void StatusWriter::ownership_conflict(const Report& r, const decide::Decision& d, const std::string& marker) {
  if (!d.ownership_conflict || conflict_already_reported(r.previous)) return;
  event(*r.dha, kube::EventType::Warning, "OwnershipConflict",
        fmt::format("replicas changed to {} by a competing writer (marker=\"{}\"); not entering a write war",
                    d.current_replicas, marker));
}

void StatusWriter::scaled(const Report& r, const decide::Decision& d, const std::string& target_kind,
                          const std::string& target_name) {
  const bool rollback = d.kind == DecisionKind::Rollback;
  event(*r.dha, kube::EventType::Normal, "Scaled",
        fmt::format("{} {}/{} replicas {} -> {}", rollback ? "rolled back" : "scaled", target_kind, target_name,
                    d.current_replicas, d.desired_replicas));
}

void StatusWriter::patch_failed(const Report& r, const decide::Decision& d, const std::string& error) {
  event(*r.dha, kube::EventType::Warning, "PatchFailed", error);
  const bool limited = d.limited || d.ownership_conflict;
  metrics_.set_dha(r.ns, r.name, op::DhaGauges{d.current_replicas, d.current_replicas, limited, true});
  metrics_.count_decision(r.ns, r.name, std::string(model::to_string(d.kind)), "PatchFailed");
}

void StatusWriter::decided(Report& r, const model::DhaSpec& spec, const decide::Decision& d) {
  if (const std::string msg = dry_run_event_message(spec, d, r.previous); !msg.empty())
    event(*r.dha, kube::EventType::Normal, "DryRunScale", msg);

  model::DhaStatus& s = r.next;
  store_in_status(s, d, r.now, r.generation);
  model::set_condition(
      s.conditions, condition(kScalingActive, true, gates::reasons::kReady, "target is scalable", r.generation), r.now);
  for (auto& c : s.conditions) c.observed_generation = r.generation;
  keep_decision_time(r.previous, s);
  // Until the status write lands, this state exists only here; a write that throws leaves it
  // remembered for the next cycle.
  unpersisted_.remember(key_of(r), s.state);
  update_status(client_, metrics_, *r.dha, r.stored, s);
  unpersisted_.forget(key_of(r));

  metrics_.set_dha(r.ns, r.name,
                   op::DhaGauges{d.current_replicas, d.desired_replicas, d.limited || d.ownership_conflict,
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

void StatusWriter::event(const rapidjson::Value& dha, kube::EventType type, const std::string& reason,
                         const std::string& message) {
  spdlog::info("event {} {}: {}", type == kube::EventType::Warning ? "Warning" : "Normal", reason, message);
  events_.record(kube::ObjectReference::of(dha), type, reason, message);
}

}  // namespace dha::status
