#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dha/kube/shard_assignment.hpp"

namespace dha::kube {
namespace {

// The hash is a contract: a DHA must land in the same shard on every replica and every
// version, or two versions running side by side during a rollout would split it differently.
TEST(ShardHash, PinnedValues) {
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);  // the published FNV-1a 64 test vector
  struct Pin {
    const char* key;
    int of2, of3, of7;
  };
  EXPECT_EQ(mix64(fnv1a64("")), 0xefd01f60ba992926ull);
  EXPECT_EQ(mix64(fnv1a64("tenant-a/db-dha")), 0xa8e9f8486c3fda2dull);
  for (const Pin& p : {Pin{"tenant-a/db-dha", 1, 0, 5}, Pin{"tenant-a/pg", 1, 0, 5}, Pin{"tenant-b/pg", 1, 2, 2},
                       Pin{"tenant-root/mysql-main", 0, 1, 4}, Pin{"x/y", 0, 0, 1}}) {
    EXPECT_EQ(shard_of(p.key, 2), p.of2) << p.key;
    EXPECT_EQ(shard_of(p.key, 3), p.of3) << p.key;
    EXPECT_EQ(shard_of(p.key, 7), p.of7) << p.key;
    EXPECT_EQ(shard_of(p.key, 1), 0) << p.key;
  }
}

// Without the finalizer, FNV-1a modulo 2 is the parity of the key's odd bytes (these four soak
// DHAs all land in shard 1), and its high bits barely see the last byte (db-0 … db-9 all land in
// one shard of 4).
TEST(ShardHash, SimilarNamesDoNotShareAShard) {
  std::set<int> of2;
  for (const char* key :
       {"tenant-a/pg-main-dha", "tenant-a/pg-dry-dha", "tenant-b/pg-quota-dha", "tenant-a/cl-main-dha"})
    of2.insert(shard_of(key, 2));
  EXPECT_EQ(of2.size(), 2u);
  std::set<int> of4;
  for (int i = 0; i < 10; ++i) of4.insert(shard_of("tenant-a/db-" + std::to_string(i), 4));
  EXPECT_GE(of4.size(), 3u);
}

TEST(ShardHash, SpreadsKeys) {
  std::vector<int> count(4, 0);
  for (int i = 0; i < 4000; ++i) ++count[shard_of("tenant-" + std::to_string(i % 40) + "/pg-" + std::to_string(i), 4)];
  for (int c : count) EXPECT_NEAR(c, 1000, 150);
}

// By namespace a DHA's shard is its namespace's: a tenant's DHAs stay together, and the value is
// the hash of the namespace as a key of its own (pinned: "tenant-a" is in shard 1 of 2,
// "tenant-e" in shard 0, where "tenant-e/orders" is in shard 1 by namespace/name).
TEST(ShardHash, ByNamespaceKeepsATenantTogether) {
  for (int shards : {2, 3, 7}) {
    const int a = shard_of("tenant-a", shards);
    for (const char* key : {"tenant-a/db-dha", "tenant-a/pg", "tenant-a/cl-main-dha", "tenant-a/x/y"})
      EXPECT_EQ(shard_of(key, shards, ShardKey::namespace_only), a) << key << " of " << shards;
  }
  EXPECT_EQ(shard_of("tenant-a/pg", 2, ShardKey::namespace_only), 1);
  EXPECT_EQ(shard_of("tenant-e/orders", 2, ShardKey::namespace_only), 0);
  EXPECT_EQ(shard_of("tenant-e/orders", 2), 1);
  EXPECT_EQ(shard_of("tenant-a/pg", 2, ShardKey::namespace_name), shard_of("tenant-a/pg", 2)) << "the default";
  EXPECT_EQ(shard_of("no-slash", 2, ShardKey::namespace_only), shard_of("no-slash", 2));
  // Namespaces still spread.
  std::vector<int> count(4, 0);
  for (int i = 0; i < 4000; ++i)
    ++count[shard_of("tenant-" + std::to_string(i % 400) + "/pg-" + std::to_string(i), 4, ShardKey::namespace_only)];
  for (int c : count) EXPECT_NEAR(c, 1000, 200);
}

TEST(ShardKeyText, ParsesTheTwoNamesAndNothingElse) {
  EXPECT_EQ(parse_shard_key("namespace-name"), ShardKey::namespace_name);
  EXPECT_EQ(parse_shard_key("namespace"), ShardKey::namespace_only);
  for (const char* bad : {"", "name", "Namespace", "namespace/name"}) EXPECT_FALSE(parse_shard_key(bad)) << bad;
  for (ShardKey k : {ShardKey::namespace_name, ShardKey::namespace_only})
    EXPECT_EQ(parse_shard_key(shard_key_name(k)), k);
}

struct PlanCase {
  const char* name;
  ShardView view;
  std::vector<int> acquire;
  std::vector<int> release;
};

class ShardPlanTable : public testing::TestWithParam<PlanCase> {};

TEST_P(ShardPlanTable, Plans) {
  const auto& c = GetParam();
  const ShardPlan plan = plan_shards(c.view);
  EXPECT_EQ(plan.acquire, c.acquire);
  EXPECT_EQ(plan.release, c.release);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ShardPlanTable,
    testing::Values(PlanCase{"alone_takes_all", {3, 1, {}, {0, 1, 2}}, {0, 1, 2}, {}},
                    PlanCase{"second_replica_makes_the_first_release", {3, 2, {0, 1, 2}, {}}, {}, {2}},
                    PlanCase{"newcomer_takes_up_to_its_share", {3, 2, {}, {2}}, {2}, {}},
                    PlanCase{"at_share_takes_nothing", {4, 2, {0, 1}, {2, 3}}, {}, {}},
                    PlanCase{"dead_replica_frees_shards_survivor_takes_share", {3, 2, {0}, {1, 2}}, {1}, {}},
                    PlanCase{"last_survivor_takes_everything", {3, 1, {0}, {1, 2}}, {1, 2}, {}},
                    PlanCase{"more_replicas_than_shards", {2, 3, {0, 1}, {}}, {}, {1}},
                    PlanCase{"releases_highest_first", {6, 3, {5, 0, 3, 1}, {}}, {}, {5, 3}},
                    PlanCase{"free_list_unsorted", {4, 1, {}, {3, 1, 0, 2}}, {0, 1, 2, 3}, {}},
                    PlanCase{"zero_live_counts_as_one", {2, 0, {}, {0, 1}}, {0, 1}, {}}),
    [](const testing::TestParamInfo<PlanCase>& i) { return std::string(i.param.name); });

// Replicas join and leave; each round every live replica plans against the same shared state
// (as each would after its List). After a few rounds every shard has exactly one holder and
// nobody holds more than its fair share.
struct Scenario {
  const char* name;
  int shards;
  std::vector<std::vector<int>> phases;  // live replicas per phase
};

class ShardPolicySimulation : public testing::TestWithParam<Scenario> {};

TEST_P(ShardPolicySimulation, SettlesOnAFairSpread) {
  const auto& sc = GetParam();
  std::vector<int> owner(static_cast<std::size_t>(sc.shards), -1);
  for (const auto& live : sc.phases) {
    for (int& o : owner)
      if (o >= 0 && std::find(live.begin(), live.end(), o) == live.end()) o = -1;  // its Leases expired
    for (int round = 0; round < 4; ++round) {
      for (int r : live) {
        ShardView v;
        v.shards = sc.shards;
        v.live_members = std::min<int>(static_cast<int>(live.size()), sc.shards);
        for (int s = 0; s < sc.shards; ++s) {
          if (owner[s] == r) v.held.push_back(s);
          if (owner[s] < 0) v.free.push_back(s);
        }
        const ShardPlan p = plan_shards(v);
        for (int s : p.release) owner[s] = -1;
        for (int s : p.acquire)
          if (owner[s] < 0) owner[s] = r;
      }
    }
    const int fair = fair_share(sc.shards, static_cast<int>(live.size()));
    std::map<int, int> count;
    for (int s = 0; s < sc.shards; ++s) {
      EXPECT_GE(owner[s], 0) << "shard " << s << " has no holder with " << live.size() << " replicas";
      ++count[owner[s]];
    }
    for (int r : live) EXPECT_LE(count[r], fair) << "replica " << r << " with " << live.size() << " replicas";
    if (static_cast<int>(live.size()) <= sc.shards) {
      for (int r : live) EXPECT_GE(count[r], sc.shards / static_cast<int>(live.size())) << "replica " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, ShardPolicySimulation,
                         testing::Values(Scenario{"three_join_one_by_one", 3, {{0}, {0, 1}, {0, 1, 2}}},
                                         Scenario{"one_of_three_dies", 3, {{0, 1, 2}, {0, 2}}},
                                         Scenario{"two_of_three_die", 3, {{0, 1, 2}, {1}}},
                                         Scenario{"more_shards_than_replicas", 8, {{0, 1, 2}, {0, 1}, {0, 1, 2, 3}}},
                                         Scenario{"replaced_replica", 4, {{0, 1}, {1}, {1, 2}}}),
                         [](const testing::TestParamInfo<Scenario>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace dha::kube
