#pragma once
// The soak's safety invariants, checked after the fact on what the API server recorded: the
// audit log (every request, who sent it, when it arrived, when it was answered, its body) plus
// the metric samples the driver pushed. Pure: no servers, so each rule can be fed a bad
// synthetic log and shown to fail (soak_invariants_test.cpp).
//
// The state at each write is rebuilt from the log itself: the target's replicas (creates, the
// operators' and tenants' patches), the tenant quota status, the Lease holder, the operator's
// own last applied count, and the recommendations the DHAs recorded in status.

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dha/testing/api_server.hpp"

namespace dha::soak {

using Time = std::chrono::system_clock::time_point;
using Seconds = std::chrono::seconds;

// One DHA and its target, as the soak created them.
struct TargetRules {
  std::string name;                         // "<namespace>/<dha name>", for messages
  std::string target_path;                  // API path of the target object (its PATCHes carry replicas)
  std::string replicas_field = "replicas";  // spec.<field> on the object; /scale writes use spec.replicas
  std::string dha_path;                     // API path of the DHA (writes to it and to /status count as leading)
  std::string lease_path;                   // the Lease its writer must hold (its shard's); "" = Rules::lease_path
  std::string series;                       // key of this target's metric pushes (MetricPush::series)
  int min = 1;
  int max = 1;
  int quorum_floor = 1;  // the adapter's floor (respectQuorum is on in every soak DHA)
  bool dry_run = false;
  Seconds down_window{0};
  Seconds deadline{0};            // convergence deadline: a rollback comes only after it
  std::string quota_status_path;  // ResourceQuota /status path in the DHA's namespace; "" = none
  std::int64_t per_pod_milli_cpu = 0;
};

struct MetricPush {
  Time time;           // when VictoriaMetrics accepted the sample (its timestamp is about now)
  std::string series;  // TargetRules::series
};

struct Rules {
  std::vector<TargetRules> targets;
  std::set<std::string> operators;  // identities of the operator processes
  std::string lease_path;           // API path of the leader-election Lease
  Seconds freshness{15};            // a sample older than this is not a metric (VM lookback)
};

struct Violation {
  std::string rule;   // e.g. "quorum-floor"
  std::string write;  // the request: method, path, writer, time, body
  std::string state;  // the reconstructed state at that moment
};

struct Report {
  std::size_t writes_checked = 0;             // operator writes examined
  std::map<std::string, std::size_t> passed;  // rule -> checks that held
  std::vector<Violation> violations;
  std::size_t checks_passed() const;
};

// The rules (tests/soak/README.md lists the part of docs/behaviour.md each one checks):
//   quorum-floor   a replicas write is never below the adapter's quorum floor (a rollback
//                  target is also >= floor)
//   max            ... never above maxReplicas, unless the floor itself is above it
//   quota          ... never above current + floor(headroom / per-pod cpu) of the tenant quota
//                  at that moment (the quota wins over everything)
//   ownership      no replicas write while the target's replicas differ from the operator's own
//                  last applied value (a competing writer holds it)
//   leader         every operator write to a target or DHA, refused ones too, comes from the
//                  identity holding the Lease when it arrived (never two leaders writing);
//                  sharded, the Lease of that DHA's shard (TargetRules::lease_path)
//   fresh-metric   every replicas write has a sample of its target pushed within `freshness`
//                  before it arrived (no metric, no scale; rollbacks included)
//   down-window    a scale-down (not a rollback) from c only when every recommendation the DHA
//                  recorded in the down window before it is below c, across restarts too
//   dry-run        no write at all to a dry-run DHA's target; each Scale/Rollback
//                  decision such a DHA records in status counts as one check
Report check(const Rules& rules, const std::vector<testing::AuditEntry>& audit, const std::vector<MetricPush>& pushes);

// State survives a restart (docs/behaviour.md#diff-restart-safe-state): every status field the
// DHA had before still exists after, and the recommendations recorded before that are still
// inside the longest window at `after_time` are still there. `what` names the restart in messages. Returns the
// violations (empty = held).
std::vector<Violation> check_status_kept(const std::string& what, const rapidjson::Value& before,
                                         const rapidjson::Value& after, Time after_time, Seconds window);

// RFC 3339 UTC ("2026-11-30T04:20:00Z", fraction optional) to a time point; false if malformed.
bool parse_rfc3339(const std::string& text, Time& out);
// A Kubernetes CPU quantity ("2", "500m", "1.5") in millicores; -1 if malformed.
std::int64_t parse_milli_cpu(const std::string& text);

}  // namespace dha::soak
