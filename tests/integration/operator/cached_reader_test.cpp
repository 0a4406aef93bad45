// The operator's CachedReader against the embedded API server: before its informer has synced
// (or without one) a read is a counted GET/LIST; once synced it is served from the cache with
// no request at all, follows changes through the watch, and lists one namespace only.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "deadline_scale.hpp"
#include "dha/kube/informer.hpp"
#include "dha/kube/json.hpp"
#include "dha/telemetry/registry.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/child_process.hpp"
#include "host/cached_reader.hpp"

namespace dha::op {
namespace {

using namespace std::chrono_literals;

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout = 10s) {
  const auto until = std::chrono::steady_clock::now() + testsupport::scaled_deadline(timeout);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

class CachedReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("dha-cached-reader-");
    testing::ApiServerOptions o;
    o.tokens["admin-token"] = {"admin", {"system:masters"}, "uid-admin"};
    api_ = std::make_unique<testing::ApiServer>(o);
    api_->start();
    api_->write_kubeconfig(dir_ + "/kubeconfig", "admin-token");
    kube::ConfigFlags flags;
    flags.kubeconfig = dir_ + "/kubeconfig";
    client_ = std::make_unique<kube::Client>(kube::Config::load(flags));
    for (const char* ns : {"a", "ab", "b"}) {
      client_->create(kube::resources::namespaces(),
                      kube::parse_json(std::string(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")") +
                                       ns + R"(","labels":{"team":")" + ns + R"("}}})"));
      quota(ns, "q1");
    }
    quota("a", "q2");
  }
  void TearDown() override {
    client_.reset();
    api_.reset();
    std::filesystem::remove_all(dir_);
  }

  void quota(const std::string& ns, const std::string& name) {
    client_->create(kube::resources::resource_quotas(ns),
                    kube::parse_json(R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":")" + name +
                                     R"(","namespace":")" + ns + R"("},"spec":{"hard":{"requests.cpu":"4"}}})"));
  }
  // Requests the reader made (GET or LIST of namespaces / resourcequotas), watches left out.
  int reads_in_audit() const {
    int n = 0;
    for (const auto& e : api_->audit())
      if (e.method == "GET" && e.query.find("watch") == std::string::npos &&
          (e.path.find("/namespaces") != std::string::npos))
        ++n;
    return n;
  }
  std::string metrics_text() const { return registry_.expose(); }

  std::string dir_;
  std::unique_ptr<testing::ApiServer> api_;
  std::unique_ptr<kube::Client> client_;
  telemetry::Registry registry_;
  SelfMetrics metrics_{registry_};
};

TEST_F(CachedReaderTest, WithoutAnInformerEveryReadIsACountedRequest) {
  CachedReader reader(*client_, metrics_);
  api_->clear_audit();
  const auto ns = reader.get(kube::resources::namespaces().named("a"));
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(kube::labels_of(*ns).at("team"), "a");
  EXPECT_EQ(reader.get(kube::resources::namespaces().named("missing")), nullptr);
  const auto quotas = reader.list(kube::resources::resource_quotas("a"));
  EXPECT_EQ(quotas.size(), 2u);
  EXPECT_EQ(reads_in_audit(), 3);
  const std::string text = metrics_text();
  // A missing object is an answer (nullptr), not an error: both GETs count as "ok".
  EXPECT_NE(text.find(R"(db_autoscaler_api_requests_total{verb="get",result="ok"} 2)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(db_autoscaler_api_requests_total{verb="list",result="ok"} 1)"), std::string::npos) << text;
}

TEST_F(CachedReaderTest, ASyncedInformerServesReadsWithoutRequestsAndFollowsChanges) {
  CachedReader reader(*client_, metrics_);
  kube::Informer namespaces(*client_, kube::resources::namespaces());
  kube::Informer quotas(*client_, kube::resources::resource_quotas());
  reader.add(namespaces);
  reader.add(quotas);
  namespaces.start();
  quotas.start();
  ASSERT_TRUE(namespaces.wait_for_sync(10s) && quotas.wait_for_sync(10s));
  api_->clear_audit();

  ASSERT_NE(reader.get(kube::resources::namespaces().named("b")), nullptr);
  EXPECT_EQ(reader.get(kube::resources::namespaces().named("missing")), nullptr);
  // "a" is a prefix of "ab": the namespace's own quotas only.
  const auto in_a = reader.list(kube::resources::resource_quotas("a"));
  ASSERT_EQ(in_a.size(), 2u);
  for (const auto& q : in_a) EXPECT_EQ(kube::namespace_of(*q), "a");
  EXPECT_EQ(reader.list(kube::resources::resource_quotas("ab")).size(), 1u);
  EXPECT_TRUE(reader.list(kube::resources::resource_quotas("none")).empty());
  EXPECT_EQ(reads_in_audit(), 0) << "a synced cache must answer without requests";

  client_->merge_patch(kube::resources::namespaces().named("b"), R"({"metadata":{"labels":{"team":"new"}}})");
  quota("b", "q2");
  EXPECT_TRUE(eventually([&] {
    const auto ns = reader.get(kube::resources::namespaces().named("b"));
    return ns != nullptr && kube::labels_of(*ns).at("team") == "new" &&
           reader.list(kube::resources::resource_quotas("b")).size() == 2;
  }));
  client_->remove(kube::resources::resource_quotas("a").named("q2"));
  EXPECT_TRUE(eventually([&] { return reader.list(kube::resources::resource_quotas("a")).size() == 1; }));
  namespaces.stop();
  quotas.stop();
}

TEST_F(CachedReaderTest, AReadBeforeTheFirstSyncWaitsForTheCacheInsteadOfSendingAGet) {
  CachedReader reader(*client_, metrics_);
  kube::Informer namespaces(*client_, kube::resources::namespaces());
  reader.add(namespaces);
  // The informer starts listing only after the read has begun, so the read finds it unsynced.
  std::thread late_start([&] {
    std::this_thread::sleep_for(300ms);
    namespaces.start();
  });
  const auto ns = reader.get(kube::resources::namespaces().named("a"));
  late_start.join();
  ASSERT_NE(ns, nullptr);
  EXPECT_EQ(kube::labels_of(*ns).at("team"), "a");
  const std::string text = metrics_text();
  EXPECT_EQ(text.find(R"(db_autoscaler_api_requests_total{verb="get")"), std::string::npos)
      << "a read during the first sync must not fall back to a GET:\n"
      << text;
  namespaces.stop();
}

TEST_F(CachedReaderTest, AnInformerThatDoesNotSyncInTimeFallsBackToRequests) {
  // A wait long enough that two loopback requests on a loaded machine (a sanitized build under
  // CPU hogs) stay well inside it: a second wait would show as a whole second more.
  constexpr auto kWait = 1000ms;
  CachedReader reader(*client_, metrics_, kWait);
  kube::Informer never_started(*client_, kube::resources::namespaces());
  reader.add(never_started);
  const auto waited_from = std::chrono::steady_clock::now();
  ASSERT_NE(reader.get(kube::resources::namespaces().named("a")), nullptr);
  EXPECT_GE(std::chrono::steady_clock::now() - waited_from, kWait - 50ms);
  // After the wait is used up, reads go straight to the API server.
  const auto second_from = std::chrono::steady_clock::now();
  EXPECT_EQ(reader.list(kube::resources::resource_quotas("a")).size(), 2u);
  ASSERT_NE(reader.get(kube::resources::namespaces().named("b")), nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - second_from, kWait) << "the reads waited for the sync again";
  const std::string text = metrics_text();
  EXPECT_NE(text.find(R"(db_autoscaler_api_requests_total{verb="get",result="ok"} 2)"), std::string::npos) << text;
}

// Our own write, then a read before the watch brought it: the informer here is stopped, so its
// cache stays at the version from before the patch, as it does for the moments a watch event is
// on its way. Told of the write, the reader asks the server instead, until the wait is over.
TEST_F(CachedReaderTest, AfterItsOwnWriteAReadIsTheServersUntilTheCacheShowsIt) {
  // The own-write wait is long enough that a loaded machine cannot use it up between the write
  // and the read right after it (that read must be the server's).
  constexpr auto kOwnWriteWait = 2000ms;
  CachedReader reader(*client_, metrics_, CachedReader::kSyncWait, kOwnWriteWait);
  const auto b = kube::resources::namespaces().named("b");
  const auto team_of = [&] { return kube::labels_of(*reader.get(b)).at("team"); };
  {
    kube::Informer frozen(*client_, kube::resources::namespaces());
    reader.add(frozen);
    frozen.start();
    ASSERT_TRUE(frozen.wait_for_sync(10s));
    frozen.stop();
    const auto response = client_->merge_patch(b, R"({"metadata":{"labels":{"team":"new"}}})");
    EXPECT_EQ(team_of(), "b") << "the frozen cache shows the version from before the write";
    reader.wrote(b, response);
    api_->clear_audit();
    EXPECT_EQ(team_of(), "new") << "told of its write, the reader must not answer from before it";
    EXPECT_EQ(reads_in_audit(), 1);
    std::this_thread::sleep_for(kOwnWriteWait + 50ms);  // the time the test is about, not a wait for state
    EXPECT_EQ(team_of(), "b") << "after the wait the cache answers again, caught up or not";
    EXPECT_EQ(reads_in_audit(), 1);
  }
  // A running informer catches up with the write: from then on the cache answers, no request.
  CachedReader fresh(*client_, metrics_);
  kube::Informer live(*client_, kube::resources::namespaces());
  fresh.add(live);
  live.start();
  ASSERT_TRUE(live.wait_for_sync(10s));
  fresh.wrote(b, client_->merge_patch(b, R"({"metadata":{"labels":{"team":"newer"}}})"));
  ASSERT_TRUE(eventually([&] { return kube::labels_of(*live.get("b")).at("team") == "newer"; }));
  api_->clear_audit();
  EXPECT_EQ(kube::labels_of(*fresh.get(b)).at("team"), "newer");
  EXPECT_EQ(kube::labels_of(*fresh.get(b)).at("team"), "newer");
  EXPECT_EQ(reads_in_audit(), 0) << "the cache shows our version: no GET";
  live.stop();
}

}  // namespace
}  // namespace dha::op
