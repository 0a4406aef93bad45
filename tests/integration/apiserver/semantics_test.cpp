// Object semantics over raw HTTP, the way the operator's kube client uses them: watch
// (ordering, bookmarks, 410), list pagination and selectors, status subresource, no-op
// updates, dryRun, identities (401, TokenReview, SubjectAccessReview), audit, faults.

#include "sanitized_build.hpp"
#include "test_support.hpp"

#include <sys/resource.h>

#include <future>
#include <thread>

namespace dha::testing::test {
namespace {

const std::string kPgs = "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses";

std::string pg(const std::string& name, int replicas, const std::string& labels = "{}") {
  return R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":")" + name +
         R"(","labels":)" + labels + R"(},"spec":{"replicas":)" + std::to_string(replicas) + "}}";
}

std::string rv_of(const HttpResult& r) {
  auto doc = r.json();
  return doc["metadata"]["resourceVersion"].GetString();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

class SemanticsTest : public ApiServerTest {
 protected:
  void configure(ApiServerOptions& options) override {
    options.watch_history = 8;
    options.watch_bookmark_interval = std::chrono::milliseconds(300);
    options.tokens["admin-token"] = Identity{"admin", {"system:masters"}, "1"};
    options.tokens["tenant-token"] = Identity{"tenant-a", {"tenants"}, "2"};
    options.sar_allowed_users = {"metrics-reader"};
  }
  HttpResult as_admin(const std::string& method, const std::string& path, const std::string& body = "",
                      const std::string& content_type = "application/json") {
    return call(method, path, body, content_type, "admin-token");
  }
};

TEST_F(SemanticsTest, WatchFromResourceVersionStreamsEventsInOrder) {
  auto created = as_admin("POST", kPgs, pg("a", 2));
  ASSERT_EQ(created.status, 201);
  std::string start_rv = rv_of(created);
  ASSERT_EQ(as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":3}})", "application/merge-patch+json").status, 200);
  ASSERT_EQ(as_admin("DELETE", kPgs + "/a").status, 200);
  HttpCall watch;
  watch.url = server->url() + kPgs + "?watch=true&resourceVersion=" + start_rv + "&timeoutSeconds=1";
  watch.token = "admin-token";
  watch.ca_pem = server->ca_pem();
  watch.content_type = "";
  auto r = http(watch);
  ASSERT_EQ(r.status, 200) << r.body;
  auto events = lines(r.body);
  ASSERT_EQ(events.size(), 2u) << r.body;  // the ADDED is at start_rv itself, so not replayed
  EXPECT_NE(events[0].find("\"type\":\"MODIFIED\""), std::string::npos);
  EXPECT_NE(events[0].find("\"replicas\":3"), std::string::npos);
  EXPECT_NE(events[1].find("\"type\":\"DELETED\""), std::string::npos);
}

TEST_F(SemanticsTest, WatchWithoutResourceVersionStartsWithSyntheticAdds) {
  ASSERT_EQ(as_admin("POST", kPgs, pg("a", 2)).status, 201);
  ASSERT_EQ(as_admin("POST", kPgs, pg("b", 2)).status, 201);
  HttpCall watch;
  watch.url = server->url() + kPgs + "?watch=1&timeoutSeconds=1";
  watch.token = "admin-token";
  watch.ca_pem = server->ca_pem();
  auto events = lines(http(watch).body);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_NE(events[0].find("\"name\":\"a\""), std::string::npos);
  EXPECT_NE(events[1].find("\"name\":\"b\""), std::string::npos);
}

TEST_F(SemanticsTest, WatchFromCompactedResourceVersionGets410Expired) {
  auto created = as_admin("POST", kPgs, pg("a", 1));
  std::string old_rv = rv_of(created);
  for (int i = 2; i < 14; ++i)  // more writes than the 8-event history keeps
    ASSERT_EQ(as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":)" + std::to_string(i) + "}}",
                       "application/merge-patch+json")
                  .status,
              200);
  HttpCall watch;
  watch.url = server->url() + kPgs + "?watch=true&resourceVersion=" + old_rv;
  watch.token = "admin-token";
  watch.ca_pem = server->ca_pem();
  auto r = http(watch);
  auto events = lines(r.body);
  ASSERT_EQ(events.size(), 1u) << r.body;
  EXPECT_NE(events[0].find("\"type\":\"ERROR\""), std::string::npos);
  EXPECT_NE(events[0].find("\"code\":410"), std::string::npos);
  EXPECT_NE(events[0].find("\"reason\":\"Expired\""), std::string::npos);
  EXPECT_NE(events[0].find("too old resource version"), std::string::npos);
}

TEST_F(SemanticsTest, WatchSendsBookmarksWhenAllowed) {
  auto created = as_admin("POST", kPgs, pg("a", 1));
  HttpCall watch;
  watch.url =
      server->url() + kPgs + "?watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" + rv_of(created);
  watch.token = "admin-token";
  watch.ca_pem = server->ca_pem();
  auto events = lines(http(watch).body);
  ASSERT_GE(events.size(), 2u) << "a quiet second with a 300 ms interval yields several bookmarks";
  EXPECT_NE(events[0].find("\"type\":\"BOOKMARK\""), std::string::npos) << events[0];
  EXPECT_NE(events[0].find("\"resourceVersion\":\"" + rv_of(created) + "\""), std::string::npos) << events[0];
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

TEST_F(SemanticsTest, IdleWatchesDoNotSpin) {
  // Regression: a quiet watch once busy-looped after its first wait slice.
  std::vector<std::future<HttpResult>> watches;
  for (int i = 0; i < 3; ++i) {
    watches.push_back(std::async(std::launch::async, [this] {
      HttpCall watch;
      watch.url = server->url() + kPgs + "?watch=true&timeoutSeconds=3";
      watch.token = "admin-token";
      watch.ca_pem = server->ca_pem();
      return http(watch);
    }));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(2000));
  double used = process_cpu_seconds() - before;
  for (auto& w : watches) EXPECT_EQ(w.get().status, 200);
  EXPECT_LT(used, 0.5) << "three idle watches used " << used << " s of CPU in 2 s";
}

TEST_F(SemanticsTest, LargeBodiesDoNotStallOnExpectContinue) {
  // libcurl sends "Expect: 100-continue" for bodies over 1 MiB and waits a second for it.
  std::string big = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"blob":")" +
                    std::string(1500000, 'x') + "\"}}";
  auto start = std::chrono::steady_clock::now();
  auto r = as_admin("POST", "/api/v1/namespaces/default/configmaps", big);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status, 201) << r.body.substr(0, 300);
  if (!testsupport::kSanitizedBuild) {
    EXPECT_LT(took, std::chrono::milliseconds(900));
  }
}

TEST_F(SemanticsTest, WatchFiltersByNamespaceLabelAndField) {
  ASSERT_EQ(
      as_admin("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other"}})")
          .status,
      201);
  auto base = as_admin("POST", kPgs, pg("keep", 1, R"({"tier":"db"})"));
  std::string rv = rv_of(base);
  ASSERT_EQ(as_admin("POST", kPgs, pg("drop", 1, R"({"tier":"web"})")).status, 201);
  ASSERT_EQ(as_admin("POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/other/postgreses",
                     pg("keep", 1, R"({"tier":"db"})"))
                .status,
            201);
  ASSERT_EQ(as_admin("PATCH", kPgs + "/keep", R"({"spec":{"replicas":2}})", "application/merge-patch+json").status,
            200);
  HttpCall watch;
  watch.url =
      server->url() + kPgs +
      "?watch=true&timeoutSeconds=1&labelSelector=tier%3Ddb&fieldSelector=metadata.name%3Dkeep&resourceVersion=" + rv;
  watch.token = "admin-token";
  watch.ca_pem = server->ca_pem();
  auto events = lines(http(watch).body);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].find("\"namespace\":\"default\""), std::string::npos);
  EXPECT_NE(events[0].find("\"replicas\":2"), std::string::npos);
}

TEST_F(SemanticsTest, ListPaginatesWithLimitAndContinue) {
  for (const char* n : {"a", "b", "c", "d", "e"}) ASSERT_EQ(as_admin("POST", kPgs, pg(n, 1)).status, 201);
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    auto r = as_admin("GET", kPgs + "?limit=2" + (token.empty() ? "" : "&continue=" + token));
    ASSERT_EQ(r.status, 200) << r.body;
    auto doc = r.json();
    EXPECT_STREQ(doc["kind"].GetString(), "PostgresList");
    for (const auto& item : doc["items"].GetArray()) names.push_back(item["metadata"]["name"].GetString());
    token = doc["metadata"].HasMember("continue") ? doc["metadata"]["continue"].GetString() : "";
    ASSERT_LT(++pages, 5);
  } while (!token.empty());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(pages, 3);
}

TEST_F(SemanticsTest, LabelSelectorsFilterLists) {
  ASSERT_EQ(as_admin("POST", kPgs, pg("a", 1, R"({"env":"prod","team":"x"})")).status, 201);
  ASSERT_EQ(as_admin("POST", kPgs, pg("b", 1, R"({"env":"dev"})")).status, 201);
  ASSERT_EQ(as_admin("POST", kPgs, pg("c", 1)).status, 201);
  struct Case {
    std::string selector;
    std::vector<std::string> want;
  };
  std::vector<Case> cases = {{"env%3Dprod", {"a"}},
                             {"env!%3Dprod", {"b", "c"}},
                             {"env%20in%20(dev,prod)", {"a", "b"}},
                             {"env%20notin%20(dev)", {"a", "c"}},
                             {"team", {"a"}},
                             {"!team", {"b", "c"}},
                             {"env%3Dprod,team%3Dx", {"a"}}};
  for (const auto& c : cases) {
    auto doc = as_admin("GET", kPgs + "?labelSelector=" + c.selector).json();
    std::vector<std::string> got;
    for (const auto& item : doc["items"].GetArray()) got.push_back(item["metadata"]["name"].GetString());
    EXPECT_EQ(got, c.want) << c.selector;
  }
}

TEST_F(SemanticsTest, StatusSubresourceAndMainResourceIgnoreEachOther) {
  ASSERT_EQ(as_admin("POST", kPgs, pg("a", 2)).status, 201);
  // Status sent on the main resource is dropped; spec sent to /status is dropped.
  auto main = as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":3},"status":{"phase":"x"}})",
                       "application/merge-patch+json");
  ASSERT_EQ(main.status, 200);
  EXPECT_FALSE(main.json().HasMember("status"));
  auto status = as_admin("PATCH", kPgs + "/a/status", R"({"spec":{"replicas":9},"status":{"phase":"Ready"}})",
                         "application/merge-patch+json");
  ASSERT_EQ(status.status, 200) << status.body;
  auto doc = status.json();
  EXPECT_EQ(doc["spec"]["replicas"].GetInt(), 3);
  EXPECT_STREQ(doc["status"]["phase"].GetString(), "Ready");
  EXPECT_EQ(doc["metadata"]["generation"].GetInt(), 2) << "status writes never bump generation";
}

TEST_F(SemanticsTest, NoOpUpdateKeepsResourceVersionAndEmitsNoEvent) {
  auto created = as_admin("POST", kPgs, pg("a", 2));
  auto same = as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":2}})", "application/merge-patch+json");
  ASSERT_EQ(same.status, 200);
  EXPECT_EQ(rv_of(same), rv_of(created));
  auto changed = as_admin("PATCH", kPgs + "/a", R"({"metadata":{"labels":{"x":"y"}}})", "application/merge-patch+json");
  EXPECT_NE(rv_of(changed), rv_of(created));
  EXPECT_EQ(changed.json()["metadata"]["generation"].GetInt(), 1) << "metadata changes never bump generation";
}

TEST_F(SemanticsTest, DryRunValidatesButStoresNothing) {
  auto dry = as_admin("POST", kPgs + "?dryRun=All", pg("a", 2));
  EXPECT_EQ(dry.status, 201) << dry.body;
  EXPECT_EQ(as_admin("GET", kPgs + "/a").status, 404);
  auto invalid = as_admin("POST", kPgs + "?dryRun=All", pg("a", -1));
  EXPECT_EQ(invalid.status, 422);
}

TEST_F(SemanticsTest, UnknownTokenIsUnauthorizedAndIdentitiesAreAudited) {
  server->clear_audit();
  auto anonymous = call("GET", kPgs);
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.json()["reason"], "Unauthorized");
  EXPECT_EQ(call("GET", kPgs, "", "", "wrong").status, 401);
  ASSERT_EQ(call("POST", kPgs, pg("a", 2), "application/json", "tenant-token").status, 201);
  auto entries = server->audit();
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[2].method, "POST");
  EXPECT_EQ(entries[2].username, "tenant-a");
  EXPECT_EQ(entries[2].status, 201);
  EXPECT_NE(entries[2].body.find("\"replicas\":2"), std::string::npos);
  EXPECT_EQ(entries[0].status, 401);
}

TEST_F(SemanticsTest, TokenReviewAndSubjectAccessReview) {
  auto tr =
      as_admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
               R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"tenant-token"}})");
  ASSERT_EQ(tr.status, 201) << tr.body;
  auto doc = tr.json();
  EXPECT_TRUE(doc["status"]["authenticated"].GetBool());
  EXPECT_STREQ(doc["status"]["user"]["username"].GetString(), "tenant-a");
  auto bad = as_admin("POST", "/apis/authentication.k8s.io/v1/tokenreviews",
                      R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"nope"}})")
                 .json();
  EXPECT_FALSE(bad["status"]["authenticated"].GetBool());

  struct Case {
    std::string user, groups;
    bool allowed;
  };
  for (const auto& c : std::vector<Case>{{"metrics-reader", "[]", true},
                                         {"someone", R"(["system:masters"])", true},
                                         {"tenant-a", R"(["tenants"])", false}}) {
    auto sar =
        as_admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                 R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":")" + c.user +
                     R"(","groups":)" + c.groups + R"(,"nonResourceAttributes":{"path":"/metrics","verb":"get"}}})");
    ASSERT_EQ(sar.status, 201) << sar.body;
    EXPECT_EQ(sar.json()["status"]["allowed"].GetBool(), c.allowed) << c.user;
  }
}

TEST_F(SemanticsTest, InjectedFaultsAnswerInsteadOfTheServer) {
  server->inject_fault("PATCH", "/postgreses/a$", 503, 2);
  ASSERT_EQ(as_admin("POST", kPgs, pg("a", 2)).status, 201);
  auto first = as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":3}})", "application/merge-patch+json");
  EXPECT_EQ(first.status, 503);
  EXPECT_EQ(first.json()["reason"], "ServiceUnavailable");
  EXPECT_EQ(as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":3}})", "application/merge-patch+json").status, 503);
  EXPECT_EQ(as_admin("PATCH", kPgs + "/a", R"({"spec":{"replicas":3}})", "application/merge-patch+json").status, 200);
}

TEST_F(SemanticsTest, ConcurrentWritersSeeExactlyOneWinnerPerResourceVersion) {
  auto created = as_admin("POST", kPgs, pg("a", 0));
  std::string rv = rv_of(created);
  std::vector<std::thread> writers;
  std::atomic<int> ok{0}, conflicts{0};
  for (int i = 0; i < 6; ++i) {
    writers.emplace_back([&, i] {
      std::string body =
          R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":"a","resourceVersion":")" +
          rv + R"("},"spec":{"replicas":)" + std::to_string(i + 1) + "}}";
      auto r = as_admin("PUT", kPgs + "/a", body);
      (r.status == 200 ? ok : conflicts)++;
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(ok.load(), 1);
  EXPECT_EQ(conflicts.load(), 5);
}

}  // namespace
}  // namespace dha::testing::test
