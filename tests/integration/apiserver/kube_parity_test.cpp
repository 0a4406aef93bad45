// Behaviours where the embedded server once differed from kube-apiserver in ways a client
// could come to rely on: objects crossing a watch's selector, bookmarks on a quiet watch,
// unsupported field selectors, what DELETE and lists answer, typed bodies without kind, and
// `kubectl auth can-i`.

#include "test_support.hpp"

namespace dha::testing::test {
namespace {

const std::string kPgs = "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses";

std::string pg(const std::string& name, const std::string& labels = "{}", const std::string& finalizers = "[]") {
  return R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":")" + name +
         R"(","labels":)" + labels + R"(,"finalizers":)" + finalizers + R"(},"spec":{"replicas":1}})";
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

std::string type_of(const std::string& event_line) {
  rapidjson::Document doc;
  doc.Parse(event_line.c_str());
  return doc.IsObject() && doc.HasMember("type") ? doc["type"].GetString() : "?";
}

class KubeParityTest : public ApiServerTest {
 protected:
  void configure(ApiServerOptions& options) override {
    options.tokens["admin-token"] = Identity{"admin", {"system:masters"}, "1"};
    options.tokens["tenant-token"] = Identity{"tenant-user", {}, "2"};
    options.watch_bookmark_interval = std::chrono::milliseconds(1500);
  }
  HttpResult as_admin(const std::string& method, const std::string& path, const std::string& body = "",
                      const std::string& content_type = "application/json") {
    return call(method, path, body, content_type, "admin-token");
  }
  HttpResult watch(const std::string& query) {
    HttpCall w;
    w.url = server->url() + kPgs + "?watch=true&" + query;
    w.token = "admin-token";
    w.ca_pem = server->ca_pem();
    return http(w);
  }
  std::string rv(const HttpResult& r) { return r.json()["metadata"]["resourceVersion"].GetString(); }
};

TEST_F(KubeParityTest, ObjectsCrossingALabelSelectorAreAddedAndDeleted) {
  auto created = as_admin("POST", kPgs, pg("a", R"({"tier":"web"})"));
  ASSERT_EQ(created.status, 201) << created.body;
  std::string start = rv(created);
  auto patch = [&](const std::string& tier) {
    auto r = as_admin("PATCH", kPgs + "/a", R"({"metadata":{"labels":{"tier":")" + tier + R"("}}})",
                      "application/merge-patch+json");
    ASSERT_EQ(r.status, 200) << r.body;
  };
  patch("db");   // enters the selector
  patch("db2");  // leaves it
  auto events = lines(watch("labelSelector=tier%3Ddb&timeoutSeconds=1&resourceVersion=" + start).body);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(type_of(events[0]), "ADDED") << events[0];
  EXPECT_EQ(type_of(events[1]), "DELETED") << events[1];
  // The DELETED carries the object as the watcher last saw it (still matching).
  EXPECT_NE(events[1].find("\"tier\":\"db\""), std::string::npos) << events[1];
}

TEST_F(KubeParityTest, QuietWatchGetsBookmarksAtIntervalsOverASecond) {
  auto created = as_admin("POST", kPgs, pg("a"));
  auto events = lines(watch("allowWatchBookmarks=true&timeoutSeconds=4&resourceVersion=" + rv(created)).body);
  // One per 1.5 s interval: at ~1.5 s and ~3 s.
  ASSERT_GE(events.size(), 2u);
  for (const auto& e : events) EXPECT_EQ(type_of(e), "BOOKMARK") << e;
  EXPECT_NE(events[0].find("\"resourceVersion\":\"" + rv(created) + "\""), std::string::npos) << events[0];
}

TEST_F(KubeParityTest, WatchFromTheCurrentStateMarksItsEndWhenBookmarksAreAllowed) {
  ASSERT_EQ(as_admin("POST", kPgs, pg("a")).status, 201);
  for (const char* rv : {"", "&resourceVersion=0"}) {
    auto events = lines(watch(std::string("allowWatchBookmarks=true&timeoutSeconds=1") + rv).body);
    ASSERT_EQ(events.size(), 2u) << rv;
    EXPECT_EQ(type_of(events[0]), "ADDED");
    EXPECT_EQ(type_of(events[1]), "BOOKMARK");
    EXPECT_NE(events[1].find("\"k8s.io/initial-events-end\":\"true\""), std::string::npos) << events[1];
  }
  // Without bookmarks there is no marker.
  EXPECT_EQ(lines(watch("timeoutSeconds=1").body).size(), 1u);
}

TEST_F(KubeParityTest, BooleanParametersAreReadAsKubeReadsThem) {
  ASSERT_EQ(as_admin("POST", kPgs, pg("a")).status, 201);
  // The Python client sends watch=True; kube takes anything but 0/false as true.
  for (const char* value : {"True", "TRUE", "yes"}) {
    auto r = as_admin("GET", kPgs + "?timeoutSeconds=1&watch=" + value);
    auto events = lines(r.body);
    ASSERT_EQ(events.size(), 1u) << value << ": " << r.body.substr(0, 200);
    EXPECT_EQ(type_of(events[0]), "ADDED") << value;
  }
  for (const char* value : {"false", "False", "0"}) {
    auto r = as_admin("GET", kPgs + "?watch=" + std::string(value));
    EXPECT_STREQ(r.json()["kind"].GetString(), "PostgresList") << value;
  }
}

TEST_F(KubeParityTest, UnsupportedFieldSelectorsAreRefusedAsKubeDoes) {
  ASSERT_EQ(as_admin("POST", kPgs, pg("a")).status, 201);
  struct Case {
    std::string path, selector;
    long status;
    std::string message;
  };
  std::vector<Case> cases = {
      {kPgs, "metadata.name%3Da", 200, ""},
      {kPgs, "metadata.namespace%3Ddefault", 200, ""},
      {kPgs, "spec.replicas%3D1", 400, "field label not supported: spec.replicas"},
      {"/api/v1/namespaces/default/events", "involvedObject.uid%3Dx,reason%3DScaled,type%3DNormal", 200, ""},
      {"/api/v1/namespaces/default/events", "message%3Dhi", 400, "field label not supported: message"},
      {"/api/v1/namespaces", "status.phase%3DActive", 200, ""},
      {"/api/v1/namespaces", "metadata.namespace%3Dx", 400, "field label not supported: metadata.namespace"},
      {"/api/v1/namespaces/default/secrets", "type%3DOpaque", 200, ""},
      {"/api/v1/namespaces/default/configmaps", "data.x%3Dy", 400,
       "\"data.x\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\""},
  };
  for (const auto& c : cases) {
    auto r = as_admin("GET", c.path + "?fieldSelector=" + c.selector);
    EXPECT_EQ(r.status, c.status) << c.path << " " << c.selector << ": " << r.body;
    if (!c.message.empty()) {
      auto doc = r.json();
      ASSERT_TRUE(doc.IsObject() && doc.HasMember("message")) << r.body;
      EXPECT_EQ(std::string(doc["message"].GetString()), c.message);
      EXPECT_STREQ(doc["reason"].GetString(), "BadRequest");
    }
  }
  // Watches refuse them the same way.
  EXPECT_EQ(watch("fieldSelector=spec.replicas%3D1&timeoutSeconds=1").status, 400);
}

TEST_F(KubeParityTest, DeleteAnswersAStatusUnlessFinalizersKeepTheObject) {
  auto created = as_admin("POST", kPgs, pg("gone"));
  ASSERT_EQ(created.status, 201);
  std::string uid = created.json()["metadata"]["uid"].GetString();
  auto deleted = as_admin("DELETE", kPgs + "/gone");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  auto status = deleted.json();
  EXPECT_STREQ(status["kind"].GetString(), "Status");
  EXPECT_STREQ(status["status"].GetString(), "Success");
  EXPECT_STREQ(status["details"]["name"].GetString(), "gone");
  EXPECT_STREQ(status["details"]["group"].GetString(), "apps.cozystack.io");
  EXPECT_STREQ(status["details"]["kind"].GetString(), "postgreses");
  EXPECT_EQ(std::string(status["details"]["uid"].GetString()), uid);

  ASSERT_EQ(as_admin("POST", kPgs, pg("held", "{}", R"(["example.com/keep"])")).status, 201);
  auto held = as_admin("DELETE", kPgs + "/held");
  ASSERT_EQ(held.status, 200) << held.body;
  auto object = held.json();
  EXPECT_STREQ(object["kind"].GetString(), "Postgres");
  EXPECT_TRUE(object["metadata"].HasMember("deletionTimestamp"));

  // ServiceAccounts are answered with the object even when they go at once.
  ASSERT_EQ(as_admin("POST", "/api/v1/namespaces/default/serviceaccounts",
                     R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa"}})")
                .status,
            201);
  auto sa = as_admin("DELETE", "/api/v1/namespaces/default/serviceaccounts/sa");
  EXPECT_STREQ(sa.json()["kind"].GetString(), "ServiceAccount") << sa.body;

  // A collection delete still lists the deleted objects.
  ASSERT_EQ(as_admin("POST", kPgs, pg("c1")).status, 201);
  auto collection = as_admin("DELETE", kPgs + "?fieldSelector=metadata.name%3Dc1");
  ASSERT_EQ(collection.status, 200) << collection.body;
  auto list = collection.json();
  ASSERT_EQ(list["items"].Size(), 1u) << collection.body;
  EXPECT_STREQ(list["items"][0]["kind"].GetString(), "Postgres");
}

TEST_F(KubeParityTest, ListsNumberWhatIsLeftAndTypedItemsCarryNoKind) {
  for (const char* n : {"a", "b", "c"}) ASSERT_EQ(as_admin("POST", kPgs, pg(n)).status, 201);
  auto page = as_admin("GET", kPgs + "?limit=2").json();
  EXPECT_EQ(page["metadata"]["remainingItemCount"].GetInt64(), 1);
  EXPECT_STREQ(page["items"][0]["kind"].GetString(), "Postgres") << "custom objects keep theirs";
  // Filtered lists do not say how many are left.
  EXPECT_FALSE(
      as_admin("GET", kPgs + "?limit=1&labelSelector=x!%3Dy").json()["metadata"].HasMember("remainingItemCount"));

  ASSERT_EQ(as_admin("POST", "/api/v1/namespaces/default/configmaps",
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})")
                .status,
            201);
  auto typed = as_admin("GET", "/api/v1/namespaces/default/configmaps").json();
  EXPECT_STREQ(typed["kind"].GetString(), "ConfigMapList");
  ASSERT_EQ(typed["items"].Size(), 1u);
  EXPECT_FALSE(typed["items"][0].HasMember("kind"));
  EXPECT_FALSE(typed["items"][0].HasMember("apiVersion"));
}

TEST_F(KubeParityTest, BuiltInBodiesMayLeaveKindOutCustomOnesMayNot) {
  auto typed = as_admin("POST", "/api/v1/namespaces/default/configmaps", R"({"metadata":{"name":"c"}})");
  ASSERT_EQ(typed.status, 201) << typed.body;
  EXPECT_STREQ(typed.json()["kind"].GetString(), "ConfigMap");
  auto custom = as_admin("POST", kPgs, R"({"metadata":{"name":"a"},"spec":{"replicas":1}})");
  EXPECT_EQ(custom.status, 400) << custom.body;
}

TEST_F(KubeParityTest, KubectlAuthCanIAsksAboutTheCaller) {
  const std::string body = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",
    "spec":{"resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"default"}}})";
  auto admin = as_admin("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body);
  ASSERT_EQ(admin.status, 201) << admin.body;
  EXPECT_TRUE(admin.json()["status"]["allowed"].GetBool());
  auto tenant =
      call("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body, "application/json", "tenant-token");
  ASSERT_EQ(tenant.status, 201) << tenant.body;
  EXPECT_FALSE(tenant.json()["status"]["allowed"].GetBool());

  // kubectl sends the review as protobuf.
  auto yes = kubectl("--token=admin-token auth can-i patch postgreses.apps.cozystack.io -n default");
  EXPECT_EQ(yes.exit_code, 0) << yes.output;
  EXPECT_EQ(yes.output, "yes\n");
  auto no = kubectl("--token=tenant-token auth can-i get configmaps -n default");
  EXPECT_EQ(no.exit_code, 1) << no.output;
  EXPECT_EQ(no.output, "no\n");
}

TEST_F(KubeParityTest, OpenApiNamesCustomSchemasByTheReversedGroup) {
  auto doc = as_admin("GET", "/openapi/v3/apis/apps.cozystack.io/v1alpha1").json();
  ASSERT_TRUE(doc.IsObject() && doc.HasMember("components"));
  EXPECT_TRUE(doc["components"]["schemas"].HasMember("io.cozystack.apps.v1alpha1.Postgres"));
}

TEST_F(KubeParityTest, ADeletedNamespaceIsTerminatingUntilWhatItHoldsIsGone) {
  const std::string ns = R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"doomed"}})";
  const std::string pgs = "/apis/apps.cozystack.io/v1alpha1/namespaces/doomed/postgreses";
  ASSERT_EQ(as_admin("POST", "/api/v1/namespaces", ns).status, 201);
  ASSERT_EQ(as_admin("POST", pgs, pg("held", "{}", R"(["example.com/keep"])")).status, 201);
  ASSERT_EQ(as_admin("POST", pgs, pg("free")).status, 201);

  auto deleted = as_admin("DELETE", "/api/v1/namespaces/doomed");
  ASSERT_EQ(deleted.status, 200) << deleted.body;
  EXPECT_STREQ(deleted.json()["status"]["phase"].GetString(), "Terminating");
  EXPECT_EQ(as_admin("GET", pgs + "/free").status, 404) << "content without finalizers goes at once";
  EXPECT_TRUE(as_admin("GET", pgs + "/held").json()["metadata"].HasMember("deletionTimestamp"));
  EXPECT_STREQ(as_admin("GET", "/api/v1/namespaces/doomed").json()["status"]["phase"].GetString(), "Terminating");

  auto refused = as_admin("POST", "/api/v1/namespaces/doomed/configmaps",
                          R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})");
  EXPECT_EQ(refused.status, 403) << refused.body;
  auto status = refused.json();
  EXPECT_EQ(std::string(status["message"].GetString()),
            "configmaps \"c\" is forbidden: unable to create new content in namespace doomed because it is being "
            "terminated");
  EXPECT_STREQ(status["details"]["causes"][0]["reason"].GetString(), "NamespaceTerminating");

  // Releasing the last finalizer lets the namespace go.
  ASSERT_EQ(
      as_admin("PATCH", pgs + "/held", R"({"metadata":{"finalizers":null}})", "application/merge-patch+json").status,
      200);
  EXPECT_EQ(as_admin("GET", "/api/v1/namespaces/doomed").status, 404);
}

TEST_F(KubeParityTest, AnEmptyNamespaceAnswersTerminatingAndGoes) {
  ASSERT_EQ(as_admin("POST", "/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"e"}})")
                .status,
            201);
  auto deleted = as_admin("DELETE", "/api/v1/namespaces/e");
  ASSERT_EQ(deleted.status, 200);
  EXPECT_STREQ(deleted.json()["status"]["phase"].GetString(), "Terminating");
  EXPECT_EQ(as_admin("GET", "/api/v1/namespaces/e").status, 404);
}

TEST_F(KubeParityTest, BuiltInTablesCountDataAsKubesPrintersDo) {
  ASSERT_EQ(as_admin("POST", "/api/v1/namespaces/default/configmaps",
                     R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"},
                         "binaryData":{"c":"eA=="}})")
                .status,
            201);
  HttpCall get;
  get.url = server->url() + "/api/v1/namespaces/default/configmaps/c";
  get.token = "admin-token";
  get.ca_pem = server->ca_pem();
  get.extra_headers = {"Accept: application/json;as=Table;v=v1;g=meta.k8s.io"};
  auto doc = http(get).json();
  ASSERT_TRUE(doc.IsObject() && doc.HasMember("columnDefinitions"));
  std::vector<std::string> columns;
  for (const auto& c : doc["columnDefinitions"].GetArray()) columns.push_back(c["name"].GetString());
  EXPECT_EQ(columns, (std::vector<std::string>{"Name", "Data", "Age"}));
  EXPECT_STREQ(doc["columnDefinitions"][1]["type"].GetString(), "string") << "declared so by kube, cells are numbers";
  EXPECT_EQ(doc["rows"][0]["cells"][1].GetInt64(), 3) << "data and binaryData together";
}

}  // namespace
}  // namespace dha::testing::test
