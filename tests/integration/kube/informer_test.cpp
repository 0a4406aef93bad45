// Watches and informers: cache + handlers, resume from the last resourceVersion after a server
// restart, and 410 Gone → relist.
#include <algorithm>
#include <mutex>

#include "dha/kube/informer.hpp"
#include "dha/telemetry/registry.hpp"
#include "kube_fixture.hpp"
#include "tcp_proxy.hpp"

namespace dha::kube::test {
namespace {

class Recorder {
 public:
  ResourceEventHandler handler() {
    return {[this](const ObjectPtr& o) { push("add " + name_of(*o)); },
            [this](const ObjectPtr&, const ObjectPtr& n) {
              push("update " + name_of(*n) + " " + string_at(*n, {"data", "k"}));
            },
            [this](const ObjectPtr& o) { push("delete " + name_of(*o)); }};
  }
  bool saw(const std::string& what) const {
    std::lock_guard lock(mu_);
    return std::find(events_.begin(), events_.end(), what) != events_.end();
  }
  std::vector<std::string> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  void push(std::string e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
  }
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class KubeInformers : public KubeTest {
 protected:
  dha::testing::ApiServerOptions server_options() override {
    dha::testing::ApiServerOptions o;
    o.watch_history = 10;
    o.watch_bookmark_interval = std::chrono::milliseconds(100);
    return o;
  }
  void SetUp() override {
    KubeTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;  // no cluster to create namespaces in
    for (const char* ns : {"w", "g", "other"}) ensure_namespace(ns);
  }
  static InformerOptions fast() {
    InformerOptions o;
    o.watch_timeout_seconds = 1;
    o.retry_base = std::chrono::milliseconds(20);
    o.retry_cap = std::chrono::milliseconds(200);
    o.page_size = 2;  // the initial list pages too
    return o;
  }
};

TEST_F(KubeInformers, ListThenWatchKeepsTheCacheAndTellsHandlers) {
  for (const char* n : {"a", "b", "c"}) client_->create(configmaps("w"), configmap(n, "w"));
  client_->create(configmaps("other"), configmap("not-mine", "other"));
  Informer inf(*client_, configmaps("w"), fast());
  Recorder rec;
  inf.add_handler(rec.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  EXPECT_EQ(inf.size(), 3u);
  EXPECT_TRUE(rec.saw("add a") && rec.saw("add b") && rec.saw("add c"));

  client_->create(configmaps("w"), configmap("d", "w"));
  client_->merge_patch(configmaps("w").named("a"), R"({"data":{"k":"v2"}})");
  client_->remove(configmaps("w").named("b"));
  ASSERT_TRUE(eventually([&] { return rec.saw("add d") && rec.saw("update a v2") && rec.saw("delete b"); }))
      << ::testing::PrintToString(rec.events());
  EXPECT_EQ(inf.size(), 3u);
  EXPECT_EQ(inf.get("w/b"), nullptr);
  ASSERT_NE(inf.get("w/a"), nullptr);
  EXPECT_EQ(string_at(*inf.get("w/a"), {"data", "k"}), "v2");
  EXPECT_EQ(inf.list("w", LabelSelector::parse("")).size(), 3u);
  EXPECT_FALSE(rec.saw("add not-mine"));

  // Watches are re-opened every second (timeoutSeconds=1) from the last resourceVersion,
  // without a relist.
  ASSERT_TRUE(eventually([&] { return inf.watch_count() >= 3; }));
  EXPECT_EQ(inf.relist_count(), 1);
  inf.stop();
}

TEST_F(KubeInformers, LabelSelectorLimitsTheCache) {
  client_->create(configmaps("w"), configmap("red", "w", R"({"color":"red"})"));
  client_->create(configmaps("w"), configmap("blue", "w", R"({"color":"blue"})"));
  InformerOptions o = fast();
  o.label_selector = "color=red";
  Informer inf(*client_, configmaps("w"), o);
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  EXPECT_EQ(inf.size(), 1u);
  EXPECT_NE(inf.get("w/red"), nullptr);
  EXPECT_THROW(Informer(*client_, configmaps("w"),
                        [] {
                          InformerOptions bad;
                          bad.label_selector = "color in (";
                          return bad;
                        }()),
               SelectorError);
}

// list(namespace, selector) on an all-namespaces informer: exactly that namespace (not one whose
// name merely starts with it) and, within it, the selector.
TEST_F(KubeInformers, ListOfOneNamespaceFromAnAllNamespacesCache) {
  ensure_namespace("wx");
  client_->create(configmaps("w"), configmap("one", "w", R"({"tier":"db"})"));
  client_->create(configmaps("w"), configmap("two", "w", R"({"tier":"web"})"));
  client_->create(configmaps("wx"), configmap("three", "wx", R"({"tier":"db"})"));
  client_->create(configmaps("g"), configmap("four", "g", R"({"tier":"db"})"));
  Informer inf(*client_, configmaps(""), fast());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  auto names = [](const std::vector<ObjectPtr>& objs) {
    std::vector<std::string> out;
    for (const auto& o : objs) out.push_back(namespace_of(*o) + "/" + name_of(*o));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(inf.list("w")), (std::vector<std::string>{"w/one", "w/two"}));
  EXPECT_EQ(names(inf.list("w", LabelSelector::parse("tier=db"))), (std::vector<std::string>{"w/one"}));
  EXPECT_EQ(names(inf.list("wx")), (std::vector<std::string>{"wx/three"}));
  EXPECT_TRUE(inf.list("v").empty());
  EXPECT_EQ(names(inf.list("", LabelSelector::parse("tier=db"))),
            (std::vector<std::string>{"g/four", "w/one", "wx/three"}));
}

// A transform shapes what is cached and what handlers see, on the initial list and on watch
// events alike; drop_managed_fields removes exactly metadata.managedFields.
TEST_F(KubeInformers, TransformAppliesToListedAndWatchedObjects) {
  client_->create(configmaps("w"), configmap("before", "w"));
  auto options = fast();
  options.transform = [](rapidjson::Document& obj) {
    obj.RemoveMember("data");
    drop_managed_fields(obj);
  };
  Informer inf(*client_, configmaps("w"), options);
  Recorder rec;
  inf.add_handler(rec.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  client_->create(configmaps("w"), configmap("after", "w"));
  client_->merge_patch(configmaps("w").named("after"), R"({"data":{"k":"v2"}})");
  ASSERT_TRUE(eventually([&] { return rec.saw("update after "); })) << ::testing::PrintToString(rec.events());
  for (const char* key : {"w/before", "w/after"}) {
    const auto obj = inf.get(key);
    ASSERT_NE(obj, nullptr) << key;
    EXPECT_FALSE(obj->HasMember("data")) << key;
    EXPECT_EQ(namespace_of(*obj), "w");
    EXPECT_FALSE(resource_version_of(*obj).empty());
  }

  auto doc = parse_json(R"({"metadata":{"name":"x","managedFields":[{"manager":"kubectl"}]},"spec":{"a":1}})");
  drop_managed_fields(doc);
  EXPECT_EQ(to_json(doc), R"({"metadata":{"name":"x"},"spec":{"a":1}})");
  auto odd = parse_json(R"({"metadata":"not an object"})");
  drop_managed_fields(odd);  // left alone, no throw
  EXPECT_EQ(to_json(odd), R"({"metadata":"not an object"})");
}

TEST_F(KubeInformers, WatchFromAnExpiredVersionIsGone) {
  // kube-apiserver keeps minutes of history (its watch cache, then etcd until compaction).
  DHA_EMBEDDED_ONLY("a history of 10 changes (watch_history)");
  const auto first = client_->create(configmaps("g"), configmap("first", "g"));
  for (int i = 0; i < 15; ++i)
    client_->merge_patch(configmaps("g").named("first"), R"({"data":{"k":")" + std::to_string(i) + "\"}}");
  WatchOptions w;
  w.resource_version = resource_version_of(first);
  w.timeout_seconds = 2;
  try {
    client_->watch(configmaps("g"), w, [](WatchEvent&&) { return true; });
    FAIL() << "watch from a compacted resourceVersion did not fail";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.reason(), Reason::Gone) << e.what();
  }
}

TEST_F(KubeInformers, WatchStreamsAreCountedAsRequestsButNotAsLatency) {
  DHA_EMBEDDED_ONLY("a history of 10 changes and an injected 410");
  telemetry::Registry registry;
  Config config = config_for(kAdmin);
  config.metrics = &registry;
  std::string host = config.server.substr(config.server.find("://") + 3);
  host = host.substr(0, host.find('/'));
  Client client(config);
  ensure_namespace("m");
  const auto first = client.create(configmaps("m"), configmap("first", "m"));
  for (int i = 0; i < 15; ++i)
    client.merge_patch(configmaps("m").named("first"), R"({"data":{"k":")" + std::to_string(i) + "\"}}");

  auto& requests = registry.counter("rest_client_requests_total", "", {"code", "method", "host"});
  // The client's own families (looking them up again returns them).
  auto& latency = registry.histogram("rest_client_request_duration_seconds", "", {"verb", "host"});
  const double ok_before = requests.with({"200", "GET", host})->value();
  const auto timed_before = latency.with({"GET", host})->snapshot().count;

  WatchOptions w;
  w.timeout_seconds = 5;
  client.watch(configmaps("m"), w, [](WatchEvent&&) { return false; });  // ends at the first event
  w.resource_version = resource_version_of(first);                       // compacted: the stream opens, then says Gone
  EXPECT_THROW(client.watch(configmaps("m"), w, [](WatchEvent&&) { return true; }), ApiError);
  server_->inject_fault("GET", "^/api/v1/namespaces/m/configmaps$", 410, 1);  // refused outright
  EXPECT_THROW(client.watch(configmaps("m"), w, [](WatchEvent&&) { return true; }), ApiError);

  EXPECT_EQ(requests.with({"200", "GET", host})->value(), ok_before + 2);
  EXPECT_EQ(requests.with({"410", "GET", host})->value(), 1);
  EXPECT_EQ(latency.with({"GET", host})->snapshot().count, timed_before) << "a stream's length is not latency";
}

TEST_F(KubeInformers, GoneDuringWatchTriggersARelistThatCatchesUp) {
  DHA_EMBEDDED_ONLY("an injected 410 on the next watch");
  client_->create(configmaps("w"), configmap("a", "w"));
  Informer inf(*client_, configmaps("w"), fast());
  Recorder rec;
  inf.add_handler(rec.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  // The next watch request (path of the collection) answers 410; list requests after it work.
  server_->inject_fault("GET", "^/api/v1/namespaces/w/configmaps$", 410, 1);
  ASSERT_TRUE(eventually([&] { return inf.relist_count() >= 2; })) << "no relist after 410";
  client_->create(configmaps("w"), configmap("after", "w"));
  ASSERT_TRUE(eventually([&] { return inf.get("w/after") != nullptr; }));
  EXPECT_NE(inf.get("w/a"), nullptr);
}

TEST_F(KubeInformers, BookmarksKeepAQuietWatchFromExpiring) {
  // The informer watches namespace "w", which stays quiet, while "other" churns through more
  // changes than the server's history keeps. Bookmarks carry the global resourceVersion, so the
  // reconnects (every second) start from a version the server still has: no 410, no relist.
  DHA_EMBEDDED_ONLY("a history of 10 changes and bookmarks every 100 ms");
  Informer inf(*client_, configmaps("w"), fast());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  // Synced means listed; the first watch may not be open yet. Churn before it opens would push
  // the list's resourceVersion out of the history (410, relist) without saying anything about
  // bookmarks: one change in "w" seen through the watch proves it is open.
  client_->create(configmaps("w"), configmap("watched", "w"));
  ASSERT_TRUE(eventually([&] { return inf.get("w/watched") != nullptr; }));
  std::string last_rv;
  client_->create(configmaps("other"), configmap("churn", "other"));
  // Three times the history in all, but at most a few changes per bookmark interval: a burst
  // of more than the history between two bookmarks would expire any watch, bookmarks or not.
  for (int i = 0; i < 30; ++i) {
    last_rv = resource_version_of(
        client_->merge_patch(configmaps("other").named("churn"), R"({"data":{"k":")" + std::to_string(i) + "\"}}"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The embedded server's resourceVersions are integers (opaque on a real server).
  ASSERT_TRUE(eventually([&] { return std::stoll(inf.last_resource_version()) >= std::stoll(last_rv); }))
      << "bookmarks did not advance the informer's resourceVersion: " << inf.last_resource_version() << " vs "
      << last_rv;
  const int watches = inf.watch_count();
  ASSERT_TRUE(eventually([&] { return inf.watch_count() >= watches + 2; }));
  EXPECT_EQ(inf.relist_count(), 1);
  inf.stop();
}

TEST_F(KubeInformers, ResumesFromItsResourceVersionAfterTheServerComesBack) {
  // The informer reaches the server through a relay that can cut every connection and refuse
  // new ones (the server "restarting"); the test's own client talks to the server directly.
  testsupport::TcpProxy proxy(server_port());
  Client informer_client(config_via(proxy.port()));

  client_->create(configmaps("w"), configmap("a", "w"));
  Informer inf(informer_client, configmaps("w"), fast());
  Recorder rec;
  inf.add_handler(rec.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  const int watches_before = inf.watch_count();

  proxy.down();
  // Changes made while the informer cannot reach the server arrive after it resumes.
  client_->create(configmaps("w"), configmap("during-outage", "w"));
  client_->remove(configmaps("w").named("a"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // reconnect attempts fail meanwhile
  EXPECT_FALSE(rec.saw("add during-outage"));
  proxy.up();

  ASSERT_TRUE(eventually([&] { return rec.saw("add during-outage") && rec.saw("delete a"); }))
      << ::testing::PrintToString(rec.events());
  EXPECT_EQ(inf.relist_count(), 1) << "resumed from the last resourceVersion, no relist needed";
  EXPECT_GT(inf.watch_count(), watches_before);
  EXPECT_EQ(inf.get("w/a"), nullptr);
  client_->create(configmaps("w"), configmap("after", "w"));
  ASSERT_TRUE(eventually([&] { return inf.get("w/after") != nullptr; }));
  inf.stop();
}

// A watch that goes silent without ending — a relay that stopped forwarding, with neither end
// told — is taken for lost after its idle bound and re-opened from its resourceVersion, so the
// cache catches up with what happened meanwhile. Without the bound it stayed stale until the
// watch's own timeout (here 300 s), which is how a quota the operator had not seen let it scale
// above the quota.
TEST_F(KubeInformers, ASilentWatchIsReopenedAfterItsIdleBound) {
  DHA_EMBEDDED_ONLY("silences an open watch");
  InformerOptions o = fast();
  o.watch_timeout_seconds = 300;                   // the stream does not end by itself during the test
  o.watch_idle_timeout = std::chrono::seconds(1);  // bookmarks come every 100 ms: a live watch is never idle that long
  Informer inf(*client_, configmaps("w"), o);
  Recorder rec;
  inf.add_handler(rec.handler());
  inf.start();
  ASSERT_TRUE(inf.wait_for_sync(std::chrono::seconds(10)));
  // The informer's one watch, once the server has it open (synced means listed, not watching).
  ASSERT_TRUE(eventually([&] { return server_->silence_watches("configmaps") == 1; }));
  const int watches = inf.watch_count();
  client_->create(configmaps("w"), configmap("while-silent", "w"));
  ASSERT_TRUE(eventually([&] { return rec.saw("add while-silent"); }))
      << "the silent watch was not replaced: " << ::testing::PrintToString(rec.events());
  EXPECT_GT(inf.watch_count(), watches);
  EXPECT_EQ(inf.relist_count(), 1) << "resumed from the last resourceVersion, no relist needed";
  inf.stop();
}

}  // namespace
}  // namespace dha::kube::test
