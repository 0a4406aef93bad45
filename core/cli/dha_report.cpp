#include "dha_report.hpp"

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

#include "dha/model/input_error.hpp"
#include "dha/model/rfc3339.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"
#include "dha/model/status_display.hpp"

namespace dha::cli {
namespace {

using rapidjson::Value;

constexpr std::size_t kStatusEvents = 5;
constexpr std::size_t kHistoryEntries = 20;

const Value* member(const Value* object, const char* name) {
  if (object == nullptr || !object->IsObject()) return nullptr;
  auto it = object->FindMember(name);
  return it == object->MemberEnd() || it->value.IsNull() ? nullptr : &it->value;
}

std::string text(const Value* v) {
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : "";
}

// Aligned columns, three spaces apart, as kubectl prints tables.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<std::size_t> width;
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 3, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// kubectl's short ages: 45s, 12m, 5h, 3d.
std::string age(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 2 * 3600) return std::to_string(seconds / 60) + "m";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

struct EventView {
  std::int64_t time = 0;
  std::string type, reason, message;
  int count = 1;
};

std::vector<EventView> events_newest_first(const Value& list) {
  std::vector<EventView> out;
  const Value* items = member(&list, "items");
  if (items == nullptr || !items->IsArray()) return out;
  for (const auto& e : items->GetArray()) {
    EventView v;
    for (const char* field : {"lastTimestamp", "eventTime", "firstTimestamp"}) {
      if (auto t = model::parse_rfc3339(text(member(&e, field)))) {
        v.time = *t;
        break;
      }
    }
    v.type = text(member(&e, "type"));
    v.reason = text(member(&e, "reason"));
    v.message = text(member(&e, "message"));
    if (const Value* c = member(&e, "count"); c != nullptr && c->IsInt()) v.count = c->GetInt();
    out.push_back(std::move(v));
  }
  std::stable_sort(out.begin(), out.end(), [](const EventView& a, const EventView& b) { return a.time > b.time; });
  return out;
}

std::string events_table(const std::vector<EventView>& events, std::size_t limit, std::int64_t now) {
  std::vector<std::vector<std::string>> rows{{"AGE", "TYPE", "REASON", "MESSAGE"}};
  for (std::size_t i = 0; i < events.size() && i < limit; ++i) {
    const auto& e = events[i];
    rows.push_back(
        {age(now - e.time) + (e.count > 1 ? " (x" + std::to_string(e.count) + ")" : ""), e.type, e.reason, e.message});
  }
  return table(rows, "  ");
}

// The parts of a DHA the screens read, with what could not be parsed said instead of thrown.
struct DhaView {
  std::string name, ns;
  std::optional<model::DhaSpec> spec;
  std::optional<model::DhaStatus> status;
  std::string problem;
  bool has_status = false;
};

DhaView view_of(const Value& dha) {
  DhaView v;
  v.name = text(member(member(&dha, "metadata"), "name"));
  v.ns = text(member(member(&dha, "metadata"), "namespace"));
  try {
    if (const Value* spec = member(&dha, "spec")) v.spec = model::parse_spec(*spec);
    if (const Value* status = member(&dha, "status")) {
      v.has_status = true;
      v.status = model::parse_status(*status);
    }
  } catch (const model::InputError& e) {
    v.problem = e.what();
  }
  return v;
}

// The count the last decision started from: the status's current count, or, when the target
// could not be read since, the count the decision itself stood at.
std::int32_t decided_at(const model::DhaStatus& s) {
  return s.current_replicas.value_or(s.last_decision ? s.last_decision->desired_replicas : 0);
}

std::string decided_by(const model::LastDecision& d) {
  const model::TraceEntry* gate = model::deciding_gate(d);
  if (gate == nullptr) return "no gate changed the recommendation (" + std::to_string(d.raw_desired_replicas) + ")";
  return model::trace_entry_words(*gate);
}

}  // namespace

std::string why_events_unread(const kube::ApiError& error) {
  std::string message = error.message();
  if (error.reason() == kube::Reason::Forbidden) {
    // "events is forbidden: User ..." says "forbidden" once.
    if (const auto at = message.find(" is forbidden: "); at != std::string::npos)
      message = message.substr(at + std::string(" is forbidden: ").size());
    return "forbidden: " + message;
  }
  return "not read: " + std::string(kube::to_string(error.reason())) + (message.empty() ? "" : ": " + message);
}

std::string render_status(const Value& dha, const Value& events, std::int64_t now, const std::string& events_unread) {
  const DhaView v = view_of(dha);
  std::ostringstream out;
  out << "Name:        " << v.ns << "/" << v.name << "\n";
  if (v.spec && v.spec->target_ref)
    out << "Target:      " << model::target_display(*v.spec->target_ref) << " (" << v.spec->target_ref->api_group << ")"
        << (v.spec->dry_run ? ", dry run: decisions are recorded, never applied" : "") << "\n";
  if (!v.problem.empty()) out << "Problem:     " << v.problem << "\n";
  if (!v.has_status || !v.status) {
    out << "Status:      none yet: the operator has not reconciled this DHA (is it running?)\n";
  } else {
    const auto& s = *v.status;
    out << "Replicas:    current " << model::count_display(s.current_replicas) << ", desired "
        << model::count_display(s.desired_replicas);
    if (v.spec) out << " (min " << v.spec->min_replicas << ", max " << v.spec->max_replicas << ")";
    out << "\n";
    if (v.spec) out << "Metrics:     " << model::metrics_display(*v.spec, s.current_metrics) << "\n";
    if (s.last_decision) {
      // The operator's summary names the gate that held the count; an older status has none.
      out << "Decision:    "
          << (s.summary.empty() ? model::decision_summary(*s.last_decision, decided_at(s)) : s.summary) << "\n";
      out << "Decided by:  " << decided_by(*s.last_decision) << "\n";
    }
    if (!s.conditions.empty()) {
      std::vector<std::vector<std::string>> rows{{"TYPE", "STATUS", "REASON", "MESSAGE"}};
      for (const auto& c : s.conditions) rows.push_back({c.type, c.status, c.reason, c.message});
      out << "Conditions:\n" << table(rows, "  ");
    }
  }
  const auto list = events_newest_first(events);
  if (!events_unread.empty())
    out << "Events:      <" << events_unread << ">\n";
  else if (list.empty())
    out << "Events:      none\n";
  else
    out << "Events (newest first):\n" << events_table(list, kStatusEvents, now);
  return out.str();
}

std::string render_why(const Value& dha) {
  const DhaView v = view_of(dha);
  std::ostringstream out;
  if (!v.problem.empty()) out << "cannot read " << v.ns << "/" << v.name << ": " << v.problem << "\n";
  if (!v.status || !v.status->last_decision) {
    out << v.ns << "/" << v.name << " has no decision yet.\n";
    return out.str();
  }
  const auto& d = *v.status->last_decision;
  out << "At " << model::format_rfc3339(d.time) << ": " << model::decision_summary(d, decided_at(*v.status)) << "\n";
  out << "The metrics asked for " << d.raw_desired_replicas << "; after every guardrail the count is "
      << d.desired_replicas << ".\n";
  int step = 1;
  for (const auto& e : d.trace)
    out << "  " << step++ << ". " << (model::gate_acted(e) ? "* " : "  ") << model::trace_entry_words(e) << "\n";
  out << "(* = the gate changed or held the count)\n";
  return out.str();
}

std::string render_history(const Value& dha, const Value& events, std::int64_t now, const std::string& events_unread) {
  const DhaView v = view_of(dha);
  std::ostringstream out;
  if (v.status) {
    const auto& state = v.status->state;
    out << "Last scale:  " << (state.last_scale_time ? model::format_rfc3339(*state.last_scale_time) : "never") << "\n";
    if (!state.recommendations.empty()) {
      std::vector<std::vector<std::string>> rows{{"TIME", "RECOMMENDED"}};
      for (const auto& r : state.recommendations)
        rows.push_back({model::format_rfc3339(r.time), std::to_string(r.replicas)});
      out << "Recommendations in the stabilization windows (oldest first):\n" << table(rows, "  ");
    }
  }
  std::vector<EventView> actions;
  for (auto& e : events_newest_first(events))
    if (e.reason == "Scaled" || e.reason == "Rollback" || e.reason == "RolledBack" || e.reason == "DryRunScale" ||
        e.reason == "PatchFailed")
      actions.push_back(std::move(e));
  if (!events_unread.empty())
    out << "Scale actions: <" << events_unread << ">\n";
  else if (actions.empty())
    out << "Scale actions: none recorded (Events expire after an hour by default)\n";
  else
    out << "Scale actions (newest first):\n" << events_table(actions, kHistoryEntries, now);
  return out.str();
}

}  // namespace dha::cli
