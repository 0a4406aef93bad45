#include "soak_invariants.hpp"

#include <fmt/format.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>

namespace dha::soak {
namespace {

bool is_write(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

std::string when(Time t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:02}:{:02}:{:02}.{:03}", tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

std::string describe(const testing::AuditEntry& e) {
  return fmt::format("{} {} by {} (arrived {}, answered {} with {}) body {}", e.method, e.path, e.username,
                     when(e.received), when(e.time), e.status, e.body);
}

std::optional<rapidjson::Document> parse(const std::string& body) {
  rapidjson::Document d;
  d.Parse(body.c_str(), body.size());
  if (d.HasParseError() || !d.IsObject()) return std::nullopt;
  return d;
}

const rapidjson::Value* at(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* key : path) {
    if (!cur->IsObject()) return nullptr;
    auto it = cur->FindMember(key);
    if (it == cur->MemberEnd()) return nullptr;
    cur = &it->value;
  }
  return cur;
}

std::string string_at(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const auto* s = at(v, path);
  return s != nullptr && s->IsString() ? std::string(s->GetString(), s->GetStringLength()) : std::string();
}

std::optional<int> replicas_in(const rapidjson::Value& body, const char* field) {
  const auto* r = at(body, {"spec", field});
  if (r == nullptr || !r->IsInt()) return std::nullopt;
  return r->GetInt();
}

// Does this request create or change the object at `path` (or its /scale)?
bool touches(const testing::AuditEntry& e, const std::string& path, const std::optional<rapidjson::Document>& body) {
  if (e.path == path || e.path == path + "/scale") return true;
  if (e.method != "POST" || !body) return false;
  return e.path + "/" + string_at(*body, {"metadata", "name"}) == path;
}

struct Quota {
  std::int64_t hard = -1;
  std::int64_t used = 0;
};

struct LastWrite {
  Time received;
  int from = 0;
  int to = 0;
};

struct TargetState {
  std::optional<int> replicas;
  std::optional<int> last_applied;  // by an operator
  std::optional<LastWrite> last_operator_write;
};

class Checker {
 public:
  Checker(const Rules& rules, const std::vector<testing::AuditEntry>& audit, const std::vector<MetricPush>& pushes)
      : rules_(rules), audit_(audit) {
    for (const auto& p : pushes) pushes_[p.series].push_back(p.time);
    for (auto& [series, times] : pushes_) std::sort(times.begin(), times.end());
  }

  Report run() {
    collect_leases_and_recommendations();
    for (const auto& e : audit_) step(e);
    return std::move(report_);
  }

 private:
  void collect_leases_and_recommendations() {
    for (const auto& e : audit_) {
      if (!is_write(e.method) || e.status >= 300) continue;
      auto body = parse(e.body);
      for (const auto& path : lease_paths()) {
        if (!touches(e, path, body) || e.method == "DELETE" || !body) continue;
        const bool held = !string_at(*body, {"spec", "holderIdentity"}).empty();
        leases_[path].push_back({e.time, held ? e.username : std::string()});
      }
      for (const auto& t : rules_.targets) {
        if (e.path != t.dha_path + "/status" || !body) continue;
        const auto* recs = at(*body, {"status", "recommendations"});
        if (recs == nullptr || !recs->IsArray()) continue;
        for (const auto& r : recs->GetArray()) {
          Time time;
          const auto* replicas = at(r, {"replicas"});
          if (parse_rfc3339(string_at(r, {"time"}), time) && replicas != nullptr && replicas->IsInt())
            recommendations_[t.dha_path][time] = replicas->GetInt();
        }
      }
    }
  }

  std::string lease_of(const TargetRules& t) const { return t.lease_path.empty() ? rules_.lease_path : t.lease_path; }
  std::set<std::string> lease_paths() const {
    std::set<std::string> out;
    for (const auto& t : rules_.targets)
      if (!lease_of(t).empty()) out.insert(lease_of(t));
    return out;
  }

  std::string holder_at(const std::string& lease, Time t) const {
    std::string holder;
    const auto it = leases_.find(lease);
    if (it == leases_.end()) return holder;
    for (const auto& [time, who] : it->second) {
      if (time > t) break;
      holder = who;
    }
    return holder;
  }

  void pass(const char* rule) { ++report_.passed[rule]; }
  void fail(const char* rule, const testing::AuditEntry& e, std::string state) {
    report_.violations.push_back({rule, describe(e), std::move(state)});
  }

  void check_leader(const TargetRules& t, const testing::AuditEntry& e) {
    const std::string holder = holder_at(lease_of(t), e.received);
    if (holder == e.username)
      pass("leader");
    else
      fail("leader", e, fmt::format("Lease holder when it arrived: \"{}\"", holder));
  }

  void step(const testing::AuditEntry& e) {
    if (!is_write(e.method)) return;
    const bool by_operator = rules_.operators.count(e.username) > 0;
    auto body = parse(e.body);
    for (const auto& t : rules_.targets) {
      if (!t.quota_status_path.empty() && e.path == t.quota_status_path && e.status < 300 && body) {
        Quota q;
        q.hard = parse_milli_cpu(string_at(*body, {"status", "hard", "requests.cpu"}));
        const std::string used = string_at(*body, {"status", "used", "requests.cpu"});
        q.used = used.empty() ? 0 : parse_milli_cpu(used);
        quotas_[t.quota_status_path] = q;
      }
      // The leader rule is about what reached the server: a write it refused (a 409 on a stale
      // resourceVersion) still came from whoever sent it.
      if (by_operator && (e.path == t.dha_path || e.path == t.dha_path + "/status")) {
        ++report_.writes_checked;
        check_leader(t, e);
        if (t.dry_run && body && e.status < 300) count_dry_run_decision(t, *body);
      }
      if (!touches(e, t.target_path, body)) continue;
      if (by_operator && t.dry_run) fail("dry-run", e, fmt::format("{} is a dry-run DHA", t.name));
      if (e.status >= 300) {
        if (by_operator) {
          ++report_.writes_checked;
          check_leader(t, e);
        }
        continue;
      }
      auto& state = targets_[t.target_path];
      const bool scale = e.path == t.target_path + "/scale";
      const std::optional<int> next =
          body ? replicas_in(*body, scale ? "replicas" : t.replicas_field.c_str()) : std::nullopt;
      if (by_operator) {
        ++report_.writes_checked;
        check_leader(t, e);
        if (next) check_replicas_write(t, state, e, *next);
      }
      if (next) state.replicas = next;
    }
  }

  // A dry-run DHA that decided to scale (a new lastDecision of kind Scale or Rollback in its
  // status) is one check of the dry-run rule: the write that did not follow. A write that did
  // follow is reported by step().
  void count_dry_run_decision(const TargetRules& t, const rapidjson::Value& body) {
    const std::string kind = string_at(body, {"status", "lastDecision", "kind"});
    const std::string time = string_at(body, {"status", "lastDecision", "time"});
    if ((kind == "Scale" || kind == "Rollback") && dry_run_decisions_[t.dha_path].insert(time).second) pass("dry-run");
  }

  std::string state_text(const TargetRules& t, const TargetState& s, const std::string& extra = "") const {
    return fmt::format("{}: replicas {} (before the write), operator last applied {}, min {}, max {}, floor {}{}",
                       t.name, s.replicas ? std::to_string(*s.replicas) : "unknown",
                       s.last_applied ? std::to_string(*s.last_applied) : "none", t.min, t.max, t.quorum_floor,
                       extra.empty() ? "" : ", " + extra);
  }

  void check_replicas_write(const TargetRules& t, TargetState& s, const testing::AuditEntry& e, int n) {
    if (n >= t.quorum_floor)
      pass("quorum-floor");
    else
      fail("quorum-floor", e, state_text(t, s));

    if (n <= std::max(t.max, t.quorum_floor))
      pass("max");
    else
      fail("max", e, state_text(t, s));

    if (!t.quota_status_path.empty() && s.replicas) {
      auto q = quotas_.find(t.quota_status_path);
      if (q != quotas_.end() && q->second.hard >= 0 && t.per_pod_milli_cpu > 0) {
        const std::int64_t headroom = std::max<std::int64_t>(q->second.hard - q->second.used, 0);
        const std::int64_t ceiling = *s.replicas + headroom / t.per_pod_milli_cpu;
        if (n <= ceiling)
          pass("quota");
        else
          fail("quota", e,
               state_text(t, s,
                          fmt::format("quota hard {}m used {}m, per pod {}m: ceiling {}", q->second.hard,
                                      q->second.used, t.per_pod_milli_cpu, ceiling)));
      }
    }

    if (s.last_applied && s.replicas && *s.replicas != *s.last_applied)
      fail("ownership", e, state_text(t, s, "a competing writer holds replicas"));
    else
      pass("ownership");

    const auto& times = pushes_[t.series];
    auto it = std::upper_bound(times.begin(), times.end(), e.received);
    if (it != times.begin() && e.received - *std::prev(it) <= rules_.freshness) {
      pass("fresh-metric");
    } else {
      fail("fresh-metric", e,
           state_text(t, s,
                      it == times.begin() ? std::string("no sample pushed before it")
                                          : "last sample pushed at " + when(*std::prev(it))));
    }

    if (s.replicas && n < *s.replicas) {
      const int c = *s.replicas;
      const bool rollback = s.last_operator_write && s.last_operator_write->to == c &&
                            s.last_operator_write->to > s.last_operator_write->from &&
                            e.received - s.last_operator_write->received > t.deadline;
      if (!rollback) {
        std::string blocking;
        for (const auto& [time, raw] : recommendations_[t.dha_path]) {
          if (time > e.received) break;
          // One second of slack: status times have whole seconds.
          if (time > e.received - t.down_window + Seconds(1) && raw >= c)
            blocking = fmt::format("{} at {}", raw, when(time));
        }
        if (blocking.empty())
          pass("down-window");
        else
          fail("down-window", e,
               state_text(t, s,
                          fmt::format("down window {}s, recommendation {} inside it is not below {}",
                                      t.down_window.count(), blocking, c)));
      }
    }
    s.last_operator_write = LastWrite{e.received, s.replicas.value_or(n), n};
    s.last_applied = n;
  }

  const Rules& rules_;
  const std::vector<testing::AuditEntry>& audit_;
  std::map<std::string, std::vector<Time>> pushes_;
  std::map<std::string, std::vector<std::pair<Time, std::string>>> leases_;  // by Lease path
  std::map<std::string, std::map<Time, int>> recommendations_;
  std::map<std::string, TargetState> targets_;
  std::map<std::string, Quota> quotas_;
  std::map<std::string, std::set<std::string>> dry_run_decisions_;
  Report report_;
};

}  // namespace

std::size_t Report::checks_passed() const {
  std::size_t n = 0;
  for (const auto& [rule, count] : passed) n += count;
  return n;
}

Report check(const Rules& rules, const std::vector<testing::AuditEntry>& audit, const std::vector<MetricPush>& pushes) {
  return Checker(rules, audit, pushes).run();
}

namespace {

// The status writer drops a recommendation that a newer one at most its count and a newer one at
// least its count make irrelevant: every window holding it holds those too, so its lowest and
// highest are the same without it. Such a recommendation is superseded, not forgotten.
bool superseded(const rapidjson::Value& r, Time time, const rapidjson::Value* later) {
  if (later == nullptr || !later->IsArray() || !r.HasMember("replicas") || !r["replicas"].IsInt()) return false;
  const int replicas = r["replicas"].GetInt();
  bool newer_at_most = false, newer_at_least = false;
  for (const auto& l : later->GetArray()) {
    Time t;
    if (!parse_rfc3339(string_at(l, {"time"}), t) || t <= time || !l.HasMember("replicas") || !l["replicas"].IsInt())
      continue;
    newer_at_most = newer_at_most || l["replicas"].GetInt() <= replicas;
    newer_at_least = newer_at_least || l["replicas"].GetInt() >= replicas;
  }
  return newer_at_most && newer_at_least;
}

}  // namespace

std::vector<Violation> check_status_kept(const std::string& what, const rapidjson::Value& before,
                                         const rapidjson::Value& after, Time after_time, Seconds window) {
  std::vector<Violation> out;
  if (!before.IsObject()) return out;
  if (!after.IsObject()) {
    out.push_back({"status-kept", what, "the DHA has no status after the restart"});
    return out;
  }
  for (const auto& m : before.GetObject()) {
    const std::string field = m.name.GetString();
    // Cleared by design, not lost: the in-flight anchor on convergence, the backoff by a lower
    // metric-backed decision (docs/behaviour.md#status-persisted-state).
    if (field == "inFlightSince" || field == "backoff") continue;
    if (!after.HasMember(m.name)) out.push_back({"status-kept", what, "status." + field + " disappeared"});
  }
  const auto* recs = at(before, {"recommendations"});
  const auto* later = at(after, {"recommendations"});
  if (recs != nullptr && recs->IsArray()) {
    for (const auto& r : recs->GetArray()) {
      Time time;
      if (!parse_rfc3339(string_at(r, {"time"}), time)) continue;
      if (time <= after_time - window + Seconds(2)) continue;  // pruned legitimately by now
      bool found = false;
      if (later != nullptr && later->IsArray())
        for (const auto& l : later->GetArray())
          if (string_at(l, {"time"}) == string_at(r, {"time"}) && l.HasMember("replicas") && r.HasMember("replicas") &&
              l["replicas"] == r["replicas"])
            found = true;
      if (!found && !superseded(r, time, later))
        out.push_back(
            {"status-kept", what, "recommendation at " + string_at(r, {"time"}) + " inside the window was forgotten"});
    }
  }
  return out;
}

bool parse_rfc3339(const std::string& text, Time& out) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &consumed) != 6) return false;
  std::size_t pos = static_cast<std::size_t>(consumed);
  long long nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    long long scale = 100000000;
    for (++pos; pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])); ++pos) {
      nanos += (text[pos] - '0') * scale;
      scale /= 10;
    }
  }
  if (pos + 1 != text.size() || text[pos] != 'Z') return false;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  out = Time(
      std::chrono::duration_cast<Time::duration>(std::chrono::seconds(timegm(&tm)) + std::chrono::nanoseconds(nanos)));
  return true;
}

std::int64_t parse_milli_cpu(const std::string& text) {
  if (text.empty()) return -1;
  const bool milli = text.back() == 'm';
  const std::string number = milli ? text.substr(0, text.size() - 1) : text;
  if (number.empty() || number.find_first_not_of("0123456789.") != std::string::npos) return -1;
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end == nullptr || *end != '\0' || !std::isfinite(v)) return -1;
  return static_cast<std::int64_t>(std::llround(milli ? v : v * 1000));
}

}  // namespace dha::soak
