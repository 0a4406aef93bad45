// Three replicas with --shards 3: the shards spread over them, a SIGKILLed replica's shards are
// owned again within the lease duration (plus the polling of the survivors), and no DHA is
// ever written by a replica that did not hold its shard's Lease at that moment — checked
// against the API server's own record of every request.
#include <fmt/format.h>
#include <signal.h>

#include <map>
#include <set>
#include <sstream>

#include "dha/kube/json.hpp"
#include "dha/kube/shard_assignment.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

constexpr int kShards = 3;
constexpr int kDhas = 9;
constexpr auto kLeaseDuration = 6s;
constexpr auto kRetryPeriod = 1s;
const std::string kLeasePrefix = "db-autoscaler.autoscaling.cozystack.io-shard-";

std::string app_name(int i) { return fmt::format("pg-{}", i); }
std::string dha_name(int i) { return fmt::format("dha-{}", i); }

// A successful write of a shard Lease, as the API server recorded it.
struct LeaseWrite {
  std::chrono::system_clock::time_point time;
  int shard = -1;
  std::string holder;    // spec.holderIdentity written ("" = released)
  std::string username;  // who wrote it
};

std::vector<LeaseWrite> shard_lease_writes(const std::vector<testing::AuditEntry>& audit) {
  std::vector<LeaseWrite> out;
  for (const auto& e : audit) {
    if ((e.method != "PUT" && e.method != "POST") || e.status >= 300 || e.path.find("/leases") == std::string::npos)
      continue;
    const auto body = kube::parse_json(e.body);
    const std::string name = kube::string_at(body, {"metadata", "name"});
    if (name.rfind(kLeasePrefix, 0) != 0) continue;
    out.push_back({e.time, std::stoi(name.substr(kLeasePrefix.size())),
                   kube::string_at(body, {"spec", "holderIdentity"}), e.username});
  }
  return out;
}

// The DHA a successful operator write is about (its status, its finalizers, or its target), or "".
std::string dha_written(const testing::AuditEntry& e) {
  if (e.method == "GET" || e.status >= 300) return {};
  if (e.username != kOperatorA && e.username != kOperatorB && e.username != kOperatorC) return {};
  for (const auto& [marker, prefix] : {std::pair<std::string, std::string>{"/databasehorizontalautoscalers/", "dha-"},
                                       std::pair<std::string, std::string>{"/postgreses/", "pg-"}}) {
    const auto at = e.path.find(marker + prefix);
    if (at == std::string::npos) continue;
    std::string rest = e.path.substr(at + marker.size() + prefix.size());
    rest = rest.substr(0, rest.find('/'));
    return std::string(kNamespace) + "/dha-" + rest;
  }
  return {};
}

class ShardingTest : public OperatorWorld {
 protected:
  // On the real server: the RBAC of a chart installed with shards (it adds list on Leases).
  ShardingTest() { chart_args_ = {"--set", fmt::format("shards={}", kShards), "--set", "replicas=3"}; }

  void create_app(int i) {
    const std::string app = app_name(i);
    admin_->create(kube::resources::dhas(kNamespace),
                   kube::parse_json(fmt::format(
                       R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                       R"("metadata":{{"name":"{}","namespace":"{}"}},)"
                       R"("spec":{{"targetRef":{{"apiGroup":"apps.cozystack.io","kind":"Postgres","name":"{}"}},)"
                       R"("minReplicas":2,"maxReplicas":6,)"
                       R"("metrics":[{{"type":"ReadConnections","target":{{"averageValue":"100"}}}}]}}}})",
                       dha_name(i), kNamespace, app)));
    admin_->create({"apps.cozystack.io", "v1alpha1", "postgreses", kNamespace, {}},
                   kube::parse_json(fmt::format(
                       R"({{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{{"name":"{}",)"
                       R"("namespace":"{}"}},"spec":{{"replicas":2,"resourcesPreset":"t1.micro","size":"10Gi"}}}})",
                       app, kNamespace)));
  }

  // A spec change makes every holder write the DHA's status (observedGeneration) again, so the
  // record has writes of every DHA all through the test.
  void bump_specs() {
    while (!stop_bumping_) {
      for (int i = 0; i < kDhas && !stop_bumping_; ++i) {
        try {
          admin_->merge_patch(kube::resources::dhas(kNamespace).named(dha_name(i)),
                              fmt::format(R"({{"spec":{{"maxReplicas":{}}}}})", 6 + (bumps_ % 2)));
        } catch (const std::exception&) {
          // A conflict or a slow server: the next pass bumps it again.
        }
      }
      ++bumps_;
      std::this_thread::sleep_for(300ms);
    }
  }

  std::map<int, std::string> shard_holders() {
    std::map<int, std::string> out;
    for (int s = 0; s < kShards; ++s) {
      const auto lease =
          admin_->get_if_exists(kube::resources::leases(kReleaseNamespace).named(kLeasePrefix + std::to_string(s)));
      if (lease) out[s] = kube::string_at(*lease, {"spec", "holderIdentity"});
    }
    return out;
  }

  // Which username writes as which holder identity (from the Lease writes themselves).
  static std::map<std::string, std::string> usernames_of(const std::vector<LeaseWrite>& writes) {
    std::map<std::string, std::string> out;
    for (const auto& w : writes)
      if (!w.holder.empty()) out[w.holder] = w.username;
    return out;
  }

  std::atomic<bool> stop_bumping_{false};
  std::atomic<int> bumps_{0};
};

TEST_F(ShardingTest, ThreeReplicasSpreadShardsAndTakeOverAKilledOneWithoutOverlap) {
  for (int i = 0; i < kDhas; ++i) create_app(i);
  const std::map<std::string, std::string> flags{{"--leader-election-namespace", kReleaseNamespace},
                                                 {"--shards", std::to_string(kShards)},
                                                 {"--sync-period", "60s"},
                                                 {"--leader-elect-lease-duration", "6s"},
                                                 {"--leader-elect-renew-deadline", "4s"},
                                                 {"--leader-elect-retry-period", "1s"}};
  std::map<char, OperatorProcess*> replicas;
  for (char which : {'a', 'b', 'c'}) replicas[which] = &start_operator(which, flags, {"--leader-elect"});
  std::thread bumper([this] { bump_specs(); });
  struct Join {
    std::thread& t;
    std::atomic<bool>& stop;
    ~Join() {
      stop = true;
      if (t.joinable()) t.join();
    }
  } join{bumper, stop_bumping_};

  // Spread: every shard held, by three different replicas.
  ASSERT_TRUE(eventually(
      [&] {
        const auto h = shard_holders();
        std::set<std::string> distinct;
        for (const auto& [s, holder] : h)
          if (!holder.empty()) distinct.insert(holder);
        return h.size() == kShards && distinct.size() == kShards;
      },
      40s))
      << "the shards did not spread over the three replicas";
  EXPECT_TRUE(eventually([&] { return metrics_text('c').find("db_autoscaler_leader 1") != std::string::npos; }, 10s));
  // Each replica took its shard Leases in one go: a second start would replace the first set,
  // whose teardown releases what it had taken while the replica is still running.
  for (const auto& [which, replica] : replicas) {
    const std::string log = replica->log();
    std::size_t starts = 0;
    for (auto at = log.find(" shards (by "); at != std::string::npos; at = log.find(" shards (by ", at + 1)) ++starts;
    EXPECT_EQ(starts, 1U) << "replica " << which << " started its shard Leases " << starts << " times:\n" << log;
  }
  // Each replica's /metrics names the shard it holds, the one its Lease says.
  {
    const auto holders = shard_holders();
    const auto users = usernames_of(shard_lease_writes(cluster_->audit()));
    for (const auto& [s, holder] : holders) {
      const std::string user = users.at(holder);
      const char which = user == kOperatorA ? 'a' : user == kOperatorB ? 'b' : 'c';
      const std::string held = fmt::format("db_autoscaler_shard_held{{shard=\"{}\"}} 1", s);
      EXPECT_TRUE(eventually([&] { return metrics_text(which).find(held) != std::string::npos; }, 10s))
          << "replica " << which << " holds shard " << s << " by its Lease but its metrics do not say so:\n"
          << metrics_text(which);
      // client-go's gauge, one series per shard Lease: 1 on its holder, 0 on the other two.
      const std::string lease =
          fmt::format("leader_election_master_status{{name=\"db-autoscaler.autoscaling.cozystack.io-shard-{}\"}} ", s);
      for (const char other : {'a', 'b', 'c'})
        EXPECT_TRUE(eventually(
            [&] { return metrics_text(other).find(lease + (other == which ? "1" : "0")) != std::string::npos; }, 10s))
            << "replica " << other << ", shard " << s << " held by " << which << ":\n"
            << metrics_text(other);
    }
  }
  // Every DHA reconciled (its status written) since the spread.
  const auto spread_at = std::chrono::system_clock::now();
  auto written_since = [&](std::chrono::system_clock::time_point since, const std::string& username) {
    std::set<std::string> keys;
    for (const auto& e : cluster_->audit())
      if (e.received >= since && (username.empty() || e.username == username))
        if (auto key = dha_written(e); !key.empty()) keys.insert(key);
    return keys;
  };
  ASSERT_TRUE(eventually([&] { return written_since(spread_at, "").size() == kDhas; }, 30s));

  // SIGKILL the replica holding shard 0: no release, its Leases just stop being renewed.
  const auto audit_before = shard_lease_writes(cluster_->audit());
  const auto identity_to_user = usernames_of(audit_before);
  const std::string victim_identity = shard_holders().at(0);
  const std::string victim = identity_to_user.at(victim_identity);
  const char which = victim == kOperatorA ? 'a' : victim == kOperatorB ? 'b' : 'c';
  OperatorProcess* process = operators_[static_cast<std::size_t>(which - 'a')].get();
  std::vector<int> victim_shards;
  for (const auto& [s, holder] : shard_holders())
    if (holder == victim_identity) victim_shards.push_back(s);
  ASSERT_EQ(::kill(process->pid(), SIGKILL), 0);
  const auto killed_at = std::chrono::system_clock::now();

  ASSERT_TRUE(eventually(
      [&] {
        for (const auto& [s, holder] : shard_holders())
          if (holder.empty() || holder == victim_identity) return false;
        return true;
      },
      30s))
      << "the killed replica's shards were not taken over";
  // When each of the victim's shards was taken, from the server's record.
  std::chrono::milliseconds takeover{0};
  for (int s : victim_shards) {
    for (const auto& w : shard_lease_writes(cluster_->audit())) {
      if (w.shard == s && w.time > killed_at && !w.holder.empty() && w.holder != victim_identity) {
        takeover = std::max(takeover, std::chrono::duration_cast<std::chrono::milliseconds>(w.time - killed_at));
        break;
      }
    }
  }
  std::cout << "shards " << fmt::format("{}", fmt::join(victim_shards, ",")) << " taken over " << takeover.count()
            << " ms after the SIGKILL (lease duration " << std::chrono::milliseconds(kLeaseDuration).count()
            << " ms)\n";
  EXPECT_LE(takeover, kLeaseDuration + 2 * kRetryPeriod + 2s);
  // Their DHAs are reconciled again, by the survivors.
  std::set<std::string> victim_keys;
  for (int i = 0; i < kDhas; ++i) {
    const std::string key = std::string(kNamespace) + "/" + dha_name(i);
    if (std::find(victim_shards.begin(), victim_shards.end(), kube::shard_of(key, kShards)) != victim_shards.end())
      victim_keys.insert(key);
  }
  ASSERT_FALSE(victim_keys.empty());
  const auto taken_at = std::chrono::system_clock::now();
  EXPECT_TRUE(eventually(
      [&] {
        const auto keys = written_since(taken_at, "");
        return std::includes(keys.begin(), keys.end(), victim_keys.begin(), victim_keys.end());
      },
      20s));
  stop_bumping_ = true;

  // No overlap: every DHA write was sent while its writer was the last to have written that
  // DHA's shard Lease (as holder) — nobody else had taken it in between.
  const auto audit = cluster_->audit();
  const auto lease_writes = shard_lease_writes(audit);
  int checked = 0;
  std::set<std::string> writers;
  for (const auto& e : audit) {
    const std::string key = dha_written(e);
    if (key.empty()) continue;
    const int shard = kube::shard_of(key, kShards);
    const LeaseWrite* last = nullptr;
    for (const auto& w : lease_writes)
      if (w.shard == shard && w.time <= e.received) last = &w;
    ++checked;
    writers.insert(e.username + " " + key);
    if (last == nullptr || last->holder.empty() || last->username != e.username)
      ADD_FAILURE() << e.username << " wrote " << e.method << " " << e.path << " of shard " << shard
                    << " while the lease was " << (last == nullptr ? "never written" : "held by " + last->holder);
  }
  EXPECT_GT(checked, 2 * kDhas);
  // What each replica said about its shards (docs/operator.md shows these lines).
  for (const auto& op : operators_) {
    std::istringstream log(op->log());
    for (std::string line; std::getline(log, line);)
      if (line.find(" shard") != std::string::npos)
        std::cout << op->log_path().substr(dir_.size() + 1) << ": " << line << "\n";
  }
  // The victim's DHAs were written by the victim before and by a survivor after.
  for (const auto& key : victim_keys) {
    EXPECT_TRUE(writers.count(victim + " " + key) == 1) << key;
    EXPECT_TRUE(writers.count(std::string(kOperatorA) + " " + key) +
                    writers.count(std::string(kOperatorB) + " " + key) +
                    writers.count(std::string(kOperatorC) + " " + key) - writers.count(victim + " " + key) >=
                1)
        << key;
  }
}

}  // namespace
}  // namespace dha::optest
