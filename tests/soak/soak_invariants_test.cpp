// Every soak invariant can fail: each test feeds the checker a synthetic audit log with one
// bad write and expects exactly that rule to report it, next to a clean log that passes.
#include "soak_invariants.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dha::soak {
namespace {

using namespace std::chrono_literals;

const std::string kTarget = "/apis/apps.cozystack.io/v1alpha1/namespaces/t/postgreses/db";
const std::string kDha = "/apis/autoscaling.cozystack.io/v1alpha1/namespaces/t/databasehorizontalautoscalers/db";
const std::string kQuota = "/api/v1/namespaces/t/resourcequotas/q/status";
const std::string kLease = "/apis/coordination.k8s.io/v1/namespaces/default/leases/db-autoscaler";
const std::string kA = "op-a";
const std::string kB = "op-b";
const Time kT0 = Time(std::chrono::seconds(1'800'000'000));

Rules rules(bool dry_run = false) {
  Rules r;
  TargetRules t;
  t.name = "t/db";
  t.target_path = kTarget;
  t.dha_path = kDha;
  t.series = "db";
  t.min = 1;
  t.max = 5;
  t.quorum_floor = 2;
  t.dry_run = dry_run;
  t.down_window = 10s;
  t.deadline = 20s;
  t.quota_status_path = kQuota;
  t.per_pod_milli_cpu = 500;
  r.targets.push_back(t);
  r.operators = {kA, kB};
  r.lease_path = kLease;
  r.freshness = 15s;
  return r;
}

class Log {
 public:
  Log& add(std::chrono::milliseconds at, std::string method, std::string path, std::string user, std::string body,
           int status = 200) {
    testing::AuditEntry e;
    e.method = std::move(method);
    e.path = std::move(path);
    e.username = std::move(user);
    e.body = std::move(body);
    e.status = status;
    e.received = kT0 + at;
    e.time = kT0 + at + 5ms;
    entries.push_back(std::move(e));
    return *this;
  }
  Log& lease(std::chrono::milliseconds at, const std::string& who) {
    return add(at, "PUT", kLease, who, R"({"spec":{"holderIdentity":")" + who + R"(-host"}})");
  }
  Log& replicas(std::chrono::milliseconds at, const std::string& who, int n, int status = 200) {
    return add(at, "PATCH", kTarget, who,
               R"({"metadata":{"annotations":{"autoscaling.cozystack.io/managed-by":"db"}},"spec":{"replicas":)" +
                   std::to_string(n) + "}}",
               status);
  }
  Log& quota(std::chrono::milliseconds at, const std::string& hard, const std::string& used) {
    return add(at, "PUT", kQuota, "admin",
               R"({"status":{"hard":{"requests.cpu":")" + hard + R"("},"used":{"requests.cpu":")" + used + R"("}}})");
  }
  Log& recommendation(std::chrono::milliseconds at, const std::string& who, const std::string& time, int raw) {
    return add(at, "PUT", kDha + "/status", who,
               R"({"status":{"recommendations":[{"time":")" + time + R"(","replicas":)" + std::to_string(raw) + "}]}}");
  }
  // The world every test starts from: a Postgres at 3, a roomy quota, A leading.
  static Log world() {
    Log l;
    l.add(0ms, "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/t/postgreses", "admin",
          R"({"metadata":{"name":"db"},"spec":{"replicas":3}})", 201);
    l.quota(10ms, "10", "1500m");
    l.lease(20ms, kA);
    return l;
  }
  std::vector<testing::AuditEntry> entries;
};

std::vector<MetricPush> pushes_every_second(std::chrono::seconds until) {
  std::vector<MetricPush> out;
  for (auto s = 0s; s <= until; s += 1s) out.push_back({kT0 + s, "db"});
  return out;
}

std::vector<std::string> rules_violated(const Report& r) {
  std::vector<std::string> out;
  for (const auto& v : r.violations) out.push_back(v.rule);
  return out;
}

TEST(SoakInvariants, ACleanLogPassesEveryRule) {
  auto log = Log::world();
  log.replicas(2s, kA, 4).replicas(4s, kA, 5).lease(16s, kB).replicas(17s, kB, 5);
  const auto report = check(rules(), log.entries, pushes_every_second(30s));
  EXPECT_TRUE(report.violations.empty()) << report.violations[0].rule << ": " << report.violations[0].state;
  EXPECT_EQ(report.writes_checked, 3u);
  for (const char* rule : {"quorum-floor", "max", "quota", "ownership", "leader", "fresh-metric"})
    EXPECT_GT(report.passed.count(rule), 0u) << rule;
}

struct BadCase {
  const char* name;
  const char* rule;
  Log log;
  bool dry_run = false;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

std::vector<BadCase> bad_cases() {
  std::vector<BadCase> out;
  out.push_back({"BelowQuorumFloor", "quorum-floor", Log::world().replicas(2s, kA, 1)});
  out.push_back({"AboveMax", "max", Log::world().replicas(2s, kA, 6)});
  // hard 2000m, used 1500m at 3 replicas: 1 more pod fits, so 5 is over the ceiling of 4.
  out.push_back({"AboveQuotaCeiling", "quota", Log::world().quota(1s, "2000m", "1500m").replicas(2s, kA, 5)});
  // The tenant moves replicas away from what A applied; A writes anyway.
  out.push_back({"WriteDuringOwnershipConflict", "ownership",
                 Log::world().replicas(2s, kA, 4).replicas(3s, "tenant", 2).replicas(4s, kA, 3)});
  // B took the Lease; A still patches.
  out.push_back({"TwoLeaders", "leader", Log::world().lease(5s, kB).replicas(6s, kA, 4)});
  // A write of the old leader that arrives after the takeover breaks the rule even when the
  // server refuses it (its resourceVersion is stale): it was still sent by a non-leader.
  out.push_back({"RefusedWriteFromTheOldLeader", "leader", Log::world().lease(5s, kB).replicas(6s, kA, 4, 409)});
  // DHA status written by a non-holder counts too.
  out.push_back({"StatusByNonLeader", "leader", Log::world().recommendation(3s, kB, "2027-01-15T08:00:02Z", 3)});
  out.push_back({"WriteAfterTheMetricWentStale", "fresh-metric", Log::world().replicas(50s, kA, 4)});
  // A recommendation of 3 recorded 4 s ago (inside the 10 s window) forbids leaving 3.
  out.push_back({"ScaleDownInsideTheWindow", "down-window",
                 Log::world().recommendation(2s, kA, "2027-01-15T08:00:02Z", 3).replicas(6s, kA, 2)});
  out.push_back({"DryRunTargetWritten", "dry-run", Log::world().replicas(2s, kA, 4), true});
  // Even a rejected attempt is a write attempt on a dry-run target.
  out.push_back({"DryRunTargetAttempted", "dry-run", Log::world().replicas(2s, kA, 4, 503), true});
  return out;
}

class SoakInvariantsBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(SoakInvariantsBad, ReportsExactlyTheBrokenRule) {
  const auto& c = GetParam();
  const auto report = check(rules(c.dry_run), c.log.entries, pushes_every_second(30s));
  EXPECT_EQ(rules_violated(report), std::vector<std::string>{c.rule});
  for (const auto& v : report.violations) {
    EXPECT_NE(v.write.find(" /apis/"), std::string::npos) << "the write is printed: " << v.write;
    EXPECT_NE(v.write.find(" by "), std::string::npos) << "the writer is printed: " << v.write;
    EXPECT_FALSE(v.state.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, SoakInvariantsBad, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// kT0 is 2027-01-15T08:00:00Z; the recommendation times above are written against it.
TEST(SoakInvariants, TheSyntheticClockIsWhatTheCasesAssume) {
  Time t;
  ASSERT_TRUE(parse_rfc3339("2027-01-15T08:00:00Z", t));
  EXPECT_EQ(t, kT0);
}

TEST(SoakInvariants, ADryRunScaleDecisionWithoutAWriteIsOnePassedCheck) {
  auto log = Log::world();
  const std::string decision = R"({"status":{"lastDecision":{"kind":"Scale","time":"2027-01-15T08:00:02Z"}}})";
  log.add(2s, "PUT", kDha + "/status", kA, decision).add(3s, "PUT", kDha + "/status", kA, decision);  // same decision
  log.add(4s, "PUT", kDha + "/status", kA,
          R"({"status":{"lastDecision":{"kind":"NoChange","time":"2027-01-15T08:00:04Z"}}})");
  const auto report = check(rules(/*dry_run=*/true), log.entries, pushes_every_second(30s));
  EXPECT_TRUE(report.violations.empty());
  EXPECT_EQ(report.passed.at("dry-run"), 1u);
}

TEST(SoakInvariants, ARecommendationOlderThanTheWindowDoesNotBlock) {
  auto log = Log::world().recommendation(2s, kA, "2027-01-15T08:00:02Z", 3).replicas(14s, kA, 2);
  const auto report = check(rules(), log.entries, pushes_every_second(30s));
  EXPECT_TRUE(report.violations.empty()) << report.violations[0].state;
  EXPECT_EQ(report.passed.at("down-window"), 1u);
}

TEST(SoakInvariants, ARollbackAfterTheDeadlineIsNotAScaleDown) {
  auto log = Log::world().replicas(2s, kA, 4).recommendation(20s, kA, "2027-01-15T08:00:20Z", 4).replicas(25s, kA, 3);
  const auto report = check(rules(), log.entries, pushes_every_second(30s));
  EXPECT_TRUE(report.violations.empty()) << report.violations[0].state;
  EXPECT_EQ(report.passed.count("down-window"), 0u);
}

TEST(SoakInvariants, TheOwnershipConflictEndsWhenReplicasComeBack) {
  auto log = Log::world().replicas(2s, kA, 4).replicas(3s, "tenant", 2).replicas(4s, "tenant", 4).replicas(5s, kA, 5);
  EXPECT_TRUE(check(rules(), log.entries, pushes_every_second(30s)).violations.empty());
}

TEST(SoakInvariants, ScaleSubresourceWritesAreReplicasWrites) {
  auto r = rules();
  r.targets[0].replicas_field = "instances";
  auto log = Log::world();
  log.add(1s, "PATCH", kTarget, "tenant", R"({"spec":{"instances":3}})");
  log.add(2s, "PATCH", kTarget, kA, R"({"metadata":{"annotations":{"m":"db"}}})");  // marker only: no count
  log.add(3s, "PATCH", kTarget + "/scale", kA, R"({"spec":{"replicas":1}})");
  const auto report = check(r, log.entries, pushes_every_second(30s));
  EXPECT_EQ(rules_violated(report), std::vector<std::string>{"quorum-floor"});
  EXPECT_EQ(report.writes_checked, 2u);
}

TEST(SoakInvariants, AFailedWriteChangesNoState) {
  // The 503 PATCH changed nothing: replicas stay 4, so A's later write of 5 is no conflict.
  auto log = Log::world().replicas(2s, kA, 4).replicas(3s, kA, 5, 503).replicas(4s, kA, 5);
  const auto report = check(rules(), log.entries, pushes_every_second(30s));
  EXPECT_TRUE(report.violations.empty()) << report.violations[0].state;
  EXPECT_EQ(report.writes_checked, 3u) << "the refused write is still checked for its sender";
}

rapidjson::Document json(const char* text) {
  rapidjson::Document d;
  d.Parse(text);
  return d;
}

TEST(StatusKept, HeldWhenFieldsAndWindowedRecommendationsSurvive) {
  auto before = json(R"({"lastAppliedReplicas":3,"inFlightSince":"2027-01-15T08:00:00Z",
    "recommendations":[{"time":"2027-01-15T07:00:00Z","replicas":9},{"time":"2027-01-15T08:00:05Z","replicas":3}]})");
  auto after = json(R"({"lastAppliedReplicas":4,"recommendations":[{"time":"2027-01-15T08:00:05Z","replicas":3}]})");
  EXPECT_TRUE(check_status_kept("restart", before, after, kT0 + 10s, 60s).empty());
}

TEST(StatusKept, ALostFieldFails) {
  auto before = json(R"({"lastAppliedReplicas":3,"lastConvergedReplicas":3})");
  auto after = json(R"({"lastConvergedReplicas":3})");
  auto v = check_status_kept("kill A", before, after, kT0, 60s);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, "status-kept");
  EXPECT_EQ(v[0].write, "kill A");
  EXPECT_EQ(v[0].state, "status.lastAppliedReplicas disappeared");
}

TEST(StatusKept, AForgottenRecommendationInsideTheWindowFails) {
  auto before = json(R"({"recommendations":[{"time":"2027-01-15T08:00:05Z","replicas":3}]})");
  auto after = json(R"({"recommendations":[]})");
  auto v = check_status_kept("restart", before, after, kT0 + 10s, 60s);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].state.find("forgotten"), std::string::npos);
}

// What the status writer drops on purpose: 3 between a newer 3 (or a newer 2 and a newer 4) can
// change no window's lowest or highest. A 4 with only lower counts after it can.
TEST(StatusKept, ARecommendationSupersededByNewerOnesIsNotForgotten) {
  auto before = json(R"({"recommendations":[{"time":"2027-01-15T08:00:05Z","replicas":3},
    {"time":"2027-01-15T08:00:06Z","replicas":4}]})");
  auto same = json(R"({"recommendations":[{"time":"2027-01-15T08:00:07Z","replicas":3}]})");
  EXPECT_TRUE(check_status_kept("restart", before, same, kT0 + 10s, 60s).size() == 1u)
      << "the 4 has nothing at least 4 after it";
  auto around = json(R"({"recommendations":[{"time":"2027-01-15T08:00:06Z","replicas":4},
    {"time":"2027-01-15T08:00:07Z","replicas":2}]})");
  EXPECT_TRUE(check_status_kept("restart", before, around, kT0 + 10s, 60s).empty());
  auto only_lower = json(R"({"recommendations":[{"time":"2027-01-15T08:00:07Z","replicas":2}]})");
  const auto v = check_status_kept("restart", before, only_lower, kT0 + 10s, 60s);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].state.find("08:00:05Z"), std::string::npos) << v[0].state;
}

TEST(StatusKept, ANoStatusAfterFails) {
  auto before = json(R"({"lastAppliedReplicas":3})");
  rapidjson::Document after;  // null
  EXPECT_EQ(check_status_kept("restart", before, after, kT0, 60s).size(), 1u);
}

TEST(SoakParsers, Rfc3339) {
  struct Case {
    const char* text;
    bool ok;
    long long ms_after_t0;
  };
  for (const auto& c : std::vector<Case>{{"2027-01-15T08:00:00Z", true, 0},
                                         {"2027-01-15T08:00:01.250Z", true, 1250},
                                         {"2027-01-15T08:00:00", false, 0},
                                         {"2027-01-15 08:00:00Z", false, 0},
                                         {"", false, 0},
                                         {"2027-01-15T08:00:00Zjunk", false, 0}}) {
    Time t;
    EXPECT_EQ(parse_rfc3339(c.text, t), c.ok) << c.text;
    if (!c.ok) continue;
    EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(t - kT0).count(), c.ms_after_t0) << c.text;
  }
}

TEST(SoakParsers, MilliCpu) {
  struct Case {
    const char* text;
    std::int64_t milli;
  };
  for (const auto& c : std::vector<Case>{
           {"2", 2000}, {"500m", 500}, {"1.5", 1500}, {"0", 0}, {"", -1}, {"m", -1}, {"2Gi", -1}, {"-1", -1}})
    EXPECT_EQ(parse_milli_cpu(c.text), c.milli) << c.text;
}

}  // namespace
}  // namespace dha::soak

namespace dha::soak {
namespace {

// Sharded: each DHA's writer must hold the Lease of that DHA's shard, not just some Lease.
TEST(SoakInvariants, ShardedWritesNeedTheirShardsLease) {
  const std::string shard0 = kLease + "-shard-0";
  const std::string shard1 = kLease + "-shard-1";
  const std::string other = "/apis/apps.cozystack.io/v1alpha1/namespaces/t/postgreses/db2";
  Rules r = rules();
  r.lease_path.clear();
  r.targets[0].lease_path = shard0;
  TargetRules second = r.targets[0];
  second.name = "t/db2";
  second.target_path = other;
  second.dha_path = kDha + "2";
  second.series = "db2";
  second.lease_path = shard1;
  r.targets.push_back(second);
  auto world = [&] {
    Log l = Log::world();  // its unsharded Lease write counts for no target here
    l.add(30ms, "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/t/postgreses", "admin",
          R"({"metadata":{"name":"db2"},"spec":{"replicas":3}})", 201);
    l.add(40ms, "PUT", shard0, kA, R"({"spec":{"holderIdentity":"a-host"}})");
    l.add(50ms, "PUT", shard1, kB, R"({"spec":{"holderIdentity":"b-host"}})");
    return l;
  };
  auto pushes = pushes_every_second(30s);
  for (auto p : pushes_every_second(30s)) pushes.push_back({p.time, "db2"});
  auto patch = [](Log& l, std::chrono::milliseconds at, const std::string& path, const std::string& who) {
    l.add(at, "PATCH", path, who,
          R"({"metadata":{"annotations":{"autoscaling.cozystack.io/managed-by":"db"}},"spec":{"replicas":4}})");
  };
  Log clean = world();
  patch(clean, 2s, kTarget, kA);
  patch(clean, 2s, other, kB);
  const auto ok = check(r, clean.entries, pushes);
  EXPECT_TRUE(ok.violations.empty()) << ok.violations[0].rule << ": " << ok.violations[0].state;
  EXPECT_EQ(ok.passed.at("leader"), 2u);

  Log bad = world();
  patch(bad, 2s, other, kA);  // A holds shard 0, not db2's shard 1
  const auto report = check(r, bad.entries, pushes);
  ASSERT_EQ(report.violations.size(), 1u);
  EXPECT_EQ(report.violations[0].rule, "leader");
}

}  // namespace
}  // namespace dha::soak
