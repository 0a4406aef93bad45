// The operator's life cycle end to end: the finalizer, a restart inside a stabilization window,
// leader failover between two processes.
#include <fmt/format.h>

#include <map>
#include <optional>

#include "dha/kube/json.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

class LifecycleTest : public OperatorWorld {
 protected:
  // The start of the finalizer scenarios: a DHA that has scaled its Postgres 2 -> 3 and put its
  // marker on it.
  void scale_two_to_three_and_mark() {
    create_postgres(2);
    create_workload_monitor(2);
    auto_converge(true);
    set_load(150);
    create_dha({});
    start_operator();
    ASSERT_TRUE(eventually([&] { return replicas() == 3 && marker() == kDha; }, 30s));
  }
};

TEST_F(LifecycleTest, DeletingTheDhaClearsTheMarkerAndKeepsReplicas) {
  ASSERT_NO_FATAL_FAILURE(scale_two_to_three_and_mark());
  auto d = dha();
  const auto* f = kube::find_path(d, {"metadata", "finalizers"});
  ASSERT_TRUE(f != nullptr && f->IsArray() && f->Size() == 1);
  EXPECT_STREQ((*f)[0].GetString(), "autoscaling.cozystack.io/finalizer");

  admin_->remove(kube::resources::dhas(kNamespace).named(kDha));
  ASSERT_TRUE(eventually([&] { return !dha_if_exists().has_value(); }, 20s)) << "finalizer not removed";
  EXPECT_EQ(marker(), "");
  EXPECT_EQ(replicas(), 3);
  const auto patches = target_patches();
  ASSERT_FALSE(patches.empty());
  EXPECT_EQ(
      patches.back().body,
      R"({"metadata":{"annotations":{"autoscaling.cozystack.io/managed-by":null,"autoscaling.cozystack.io/applied-replicas":null}}})");
  // The gauges went with the DHA.
  EXPECT_TRUE(eventually(
      [&] {
        const auto text = metrics_text();
        return !text.empty() && text.find("name=\"db-dha\"") == std::string::npos;
      },
      10s));
}

// Requests of operator "a" on the DHA object itself (not its /status), by method.
std::map<std::string, int> dha_requests(const std::vector<testing::AuditEntry>& audit) {
  const std::string path = kube::resource_path(kube::resources::dhas(kNamespace).named(kDha));
  std::map<std::string, int> out;
  for (const auto& e : audit)
    if (e.username == kOperatorA && e.path == path) ++out[e.method];
  return out;
}

bool has_our_finalizer(const rapidjson::Value& d) {
  const auto* f = kube::find_path(d, {"metadata", "finalizers"});
  return f != nullptr && f->IsArray() && f->Size() == 1 &&
         std::string((*f)[0].GetString()) == "autoscaling.cozystack.io/finalizer";
}

// A DHA that has nothing to do costs one GET per reconcile and its status write: no finalizer
// (nothing of ours is on the target to clear).
TEST_F(LifecycleTest, ADhaThatNeverActsGetsNoFinalizerAndEachReconcileIsOneGet) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(200);  // raw 3 == current: nothing to patch
  create_dha({});
  start_operator('a', {{"--sync-period", "60s"}});
  ASSERT_TRUE(eventually([&] { return status_int("desiredReplicas") == 3; }, 30s));

  // The counter and the audit are two reads: a reconcile (the informers' first lists queue a
  // few) can fall between them, so they are read until they agree. An operator that made two
  // GETs per reconcile never gets there (2n against n).
  int reconciles = -1, gets = -1;
  const bool one_get_each = eventually(
      [&] {
        const std::string text = metrics_text();
        const std::string counter = "db_autoscaler_reconcile_total{result=\"success\"} ";
        const auto at = text.find(counter);
        if (at == std::string::npos) return false;
        reconciles = std::stoi(text.substr(at + counter.size()));
        const auto requests = dha_requests(cluster_->audit());
        gets = requests.count("GET") ? requests.at("GET") : 0;
        return reconciles > 0 && gets == reconciles;
      },
      10s);
  EXPECT_TRUE(one_get_each) << "GETs of the DHA by the operator " << gets << ", successful reconciles " << reconciles;
  const auto requests = dha_requests(cluster_->audit());
  EXPECT_EQ(requests.count("PUT"), 0u) << "PUTs of the DHA (a finalizer) by the operator";
  const auto d = dha();
  const auto* finalizers = kube::find_path(d, {"metadata", "finalizers"});
  EXPECT_TRUE(finalizers == nullptr || (finalizers->IsArray() && finalizers->Empty()));

  // Deleting it needs no release: it goes at once.
  admin_->remove(kube::resources::dhas(kNamespace).named(kDha));
  EXPECT_TRUE(eventually([&] { return !dha_if_exists().has_value(); }, 5s));
}

// The finalizer comes before our first write to the target (one PUT of the DHA as it is on the
// server), and is put back by the next reconcile when someone removes it from a DHA that has
// written.
TEST_F(LifecycleTest, TheFinalizerPrecedesTheFirstPatchAndIsKeptOnceTheDhaHasWritten) {
  ASSERT_NO_FATAL_FAILURE(scale_two_to_three_and_mark());
  ASSERT_TRUE(has_our_finalizer(dha()));
  const auto audit = cluster_->audit();
  const std::string dha_path = kube::resource_path(kube::resources::dhas(kNamespace).named(kDha));
  std::optional<std::chrono::system_clock::time_point> finalizer_put;
  for (const auto& e : audit)
    if (!finalizer_put && e.username == kOperatorA && e.method == "PUT" && e.path == dha_path && e.status < 300)
      finalizer_put = e.time;
  const auto patches = target_patches();
  ASSERT_TRUE(finalizer_put.has_value());
  ASSERT_FALSE(patches.empty());
  EXPECT_LE(*finalizer_put, patches.front().received) << "the finalizer must be on the DHA before the first patch";
  EXPECT_EQ(dha_requests(audit).at("PUT"), 1);

  admin_->merge_patch(kube::resources::dhas(kNamespace).named(kDha), R"({"metadata":{"finalizers":null}})");
  EXPECT_TRUE(eventually([&] { return has_our_finalizer(dha()); }, 10s)) << "finalizer not put back";
}

TEST_F(LifecycleTest, ARestartInTheMiddleOfTheScaleDownWindowKeepsTheWindow) {
  create_postgres(4);
  create_workload_monitor(4);
  auto_converge(true);
  set_load(300);  // raw 4 == current
  DhaOptions o;
  o.min = 3;  // one step down and no further, so the poll below cannot miss the count
  o.down_window = 10;
  create_dha(o);
  auto& first = start_operator();
  // Steady at 4, with a recommendation of 4 in the persisted history for the window to hold.
  const auto steady = wait_for_dha(
      [](const rapidjson::Value& d) {
        return status_int_of(d, "desiredReplicas") == 4 && condition_of(d, "AbleToScale") == "Ready" &&
               recommends(d, 4);
      },
      30s);
  ASSERT_TRUE(steady.reached) << steady.describe();

  set_load(100);  // raw 2: the window must hold 4 for 10 s
  const auto dropped = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(3s);
  ASSERT_EQ(first.stop(), 0);
  start_operator();  // a fresh process: only status remembers the window

  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 40s));
  const auto held = std::chrono::steady_clock::now() - dropped;
  EXPECT_GE(held, 8s) << "the restart shortened the scale-down window";
  auto d = dha();
  const auto* recs = kube::find_path(d, {"status", "recommendations"});
  ASSERT_TRUE(recs != nullptr && recs->IsArray() && recs->Size() >= 1);
}

TEST_F(LifecycleTest, LeaderFailoverBetweenTwoProcessesWithoutADoublePatch) {
  create_postgres(2);
  create_workload_monitor(2);
  set_load(250);  // raw 4: 2 -> 3 -> 4
  create_dha({});
  auto& a = start_operator('a', {{"--leader-election-namespace", kReleaseNamespace}}, {"--leader-elect"});
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 30s));
  auto& b = start_operator('b', {{"--leader-election-namespace", kReleaseNamespace}}, {"--leader-elect"});
  // B runs and watches but does not reconcile while A holds the Lease.
  EXPECT_TRUE(eventually([&] { return metrics_text('b').find("db_autoscaler_leader 0") != std::string::npos; }, 20s));
  // client-go's gauge, named by the Lease, as dashboards for controller-runtime operators read it.
  const std::string lease = "leader_election_master_status{name=\"db-autoscaler.autoscaling.cozystack.io\"} ";
  EXPECT_NE(metrics_text('b').find(lease + "0"), std::string::npos) << metrics_text('b');
  EXPECT_NE(metrics_text('a').find(lease + "1"), std::string::npos) << metrics_text('a');
  EXPECT_TRUE(holds_for([&] { return replicas() == 3; }, 2s));

  ASSERT_EQ(a.stop(), 0);  // releases the Lease
  const std::size_t patches_by_a = target_patches().size();
  set_health(3);  // the scale to 3 converges: the next step belongs to B
  ASSERT_TRUE(eventually([&] { return replicas() == 4; }, 30s)) << "B did not take over";
  set_health(4);
  EXPECT_TRUE(eventually([&] { return metrics_text('b').find("db_autoscaler_leader 1") != std::string::npos; }, 10s));
  EXPECT_NE(metrics_text('b').find(lease + "1"), std::string::npos) << metrics_text('b');
  EXPECT_TRUE(holds_for([&] { return replicas() == 4; }, 3s));

  const auto patches = target_patches();
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches_by_a, 1u);
  EXPECT_EQ(patches[0].username, kOperatorA);
  EXPECT_NE(patches[0].body.find("\"replicas\":3"), std::string::npos);
  EXPECT_EQ(patches[1].username, kOperatorB);
  EXPECT_NE(patches[1].body.find("\"replicas\":4"), std::string::npos);
  // Nothing from B but Lease traffic until A released the Lease (its last Lease write).
  const auto audit = cluster_->audit();
  std::size_t release = 0;
  for (std::size_t i = 0; i < audit.size(); ++i)
    if (audit[i].username == kOperatorA && audit[i].path.find("/leases/") != std::string::npos &&
        audit[i].method == "PUT")
      release = i;
  ASSERT_GT(release, 0u);
  for (std::size_t i = 0; i < release; ++i) {
    const auto& e = audit[i];
    const bool write = e.method == "PUT" || e.method == "PATCH" || e.method == "POST";
    if (e.username == kOperatorB && write && e.path.find("/leases") == std::string::npos)
      ADD_FAILURE() << "B wrote while A led: " << e.method << " " << e.path;
  }
  EXPECT_TRUE(b.running());
}

// A target the operator's watch cache has not seen yet (created a moment ago, or behind a watch
// that lags) is looked for on the server before the DHA is stopped as NotScalable "not found".
// Here the Postgres watch goes silent before the database is created, so the cache never sees it.
TEST_F(LifecycleTest, ATargetTheCacheHasNotSeenIsReadFromTheServer) {
  auto* server = cluster_->embedded_server();
  if (server == nullptr) GTEST_SKIP() << "needs the embedded API server: silences a watch";
  set_load(0);
  create_dha({});
  start_operator();
  // The database does not exist yet: NotScalable, and from then on its kind is watched.
  const auto missing =
      wait_for_dha([](const rapidjson::Value& d) { return condition_of(d, "AbleToScale") == "NotScalable"; }, 20s);
  ASSERT_TRUE(missing.reached) << missing.describe();
  ASSERT_TRUE(eventually([&] { return server->silence_watches("postgreses.apps.cozystack.io", true) >= 1; }, 30s))
      << "the operator never opened a Postgres watch";
  create_postgres(2);
  create_workload_monitor(2);
  const auto found = wait_for_dha(
      [](const rapidjson::Value& d) {
        return condition_of(d, "AbleToScale") != "NotScalable" && status_int_of(d, "currentReplicas") == 2;
      },
      20s);
  EXPECT_TRUE(found.reached) << "the DHA still stops on a database its cache has not seen\n" << found.describe();
  server->resume_watches("postgreses.apps.cozystack.io");
}

}  // namespace
}  // namespace dha::optest
