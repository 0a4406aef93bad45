// What the chaos soak (tests/soak) needs from the embedded API server: a restart that keeps
// the store (objects, resourceVersions, watch history, audit, port, CA), delay faults that push
// a client past its timeout, and audit entries stamped with the time of the answer.

#include "test_support.hpp"

#include <chrono>
#include <thread>

namespace dha::testing::test {
namespace {

using namespace std::chrono_literals;

const std::string kPgs = "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses";

std::string pg(const std::string& name, int replicas) {
  return R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":")" + name +
         R"("},"spec":{"replicas":)" + std::to_string(replicas) + "}}";
}

using ChaosTest = ApiServerTest;

TEST_F(ChaosTest, RestartKeepsObjectsVersionsAuditPortAndCa) {
  ASSERT_EQ(call("POST", kPgs, pg("db", 2)).status, 201);
  auto before = call("GET", kPgs + "/db").json();
  const std::string rv = before["metadata"]["resourceVersion"].GetString();
  const std::string uid = before["metadata"]["uid"].GetString();
  const std::string url = server->url();
  const std::string ca = server->ca_pem();
  const auto audited = server->audit().size();

  server->stop();
  EXPECT_EQ(call("GET", kPgs + "/db").status, 0) << "a stopped server still answered";
  server->start();

  EXPECT_EQ(server->url(), url);
  EXPECT_EQ(server->ca_pem(), ca);
  auto after = call("GET", kPgs + "/db");  // the old kubeconfig (CA, port) still works
  ASSERT_EQ(after.status, 200) << after.body;
  EXPECT_EQ(std::string(after.json()["metadata"]["resourceVersion"].GetString()), rv);
  EXPECT_EQ(std::string(after.json()["metadata"]["uid"].GetString()), uid);
  EXPECT_GE(server->audit().size(), audited + 1) << "the audit log was lost";

  // Stale writes still conflict and new writes continue the same resourceVersion sequence.
  auto patched = call("PATCH", kPgs + "/db", R"({"spec":{"replicas":3}})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.body;
  EXPECT_GT(std::stoull(patched.json()["metadata"]["resourceVersion"].GetString()), std::stoull(rv));
  std::string stale = pg("db", 4);
  stale.insert(stale.find(R"("name":"db")") + 11, R"(,"resourceVersion":")" + rv + "\"");
  EXPECT_EQ(call("PUT", kPgs + "/db", stale).status, 409);
  // The CRDs and built-in namespaces were not registered twice (a second POST conflicts once).
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default").status, 200);
  EXPECT_EQ(call("POST", kPgs, pg("db", 2)).status, 409);
}

TEST_F(ChaosTest, WatchResumesAfterARestartFromItsLastVersion) {
  ASSERT_EQ(call("POST", kPgs, pg("a", 1)).status, 201);
  const std::string rv = call("GET", kPgs + "/a").json()["metadata"]["resourceVersion"].GetString();
  server->stop();
  server->start();
  ASSERT_EQ(call("POST", kPgs, pg("b", 1)).status, 201);
  auto events = call("GET", kPgs + "?watch=true&timeoutSeconds=1&resourceVersion=" + rv);
  ASSERT_EQ(events.status, 200);
  EXPECT_NE(events.body.find(R"("name":"b")"), std::string::npos) << events.body;
  EXPECT_EQ(events.body.find(R"("name":"a")"), std::string::npos) << "replayed an event older than the version";
}

TEST_F(ChaosTest, DelayFaultHoldsOnlyMatchingRequestsThenServesThem) {
  ASSERT_EQ(call("POST", kPgs, pg("db", 2)).status, 201);
  server->inject_delay("GET", "/postgreses/db$", 1500ms, 1);

  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(call("GET", kPgs).status, 200);  // the list does not match
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1000ms);

  start = std::chrono::steady_clock::now();
  auto held = call("GET", kPgs + "/db");
  EXPECT_EQ(held.status, 200) << "a delay fault must serve the request after the delay";
  EXPECT_GE(std::chrono::steady_clock::now() - start, 1400ms);

  start = std::chrono::steady_clock::now();
  EXPECT_EQ(call("GET", kPgs + "/db").status, 200);  // count was 1
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1000ms);
}

TEST_F(ChaosTest, DelayPastTheClientTimeoutIsATimeoutAndStopDoesNotWaitForIt) {
  ASSERT_EQ(call("POST", kPgs, pg("db", 2)).status, 201);
  server->inject_delay("PATCH", "/postgreses/", 30s, 1);
  HttpCall slow;
  slow.method = "PATCH";
  slow.url = server->url() + kPgs + "/db";
  slow.body = R"({"spec":{"replicas":3}})";
  slow.content_type = "application/merge-patch+json";
  slow.ca_pem = server->ca_pem();
  slow.timeout_ms = 500;
  EXPECT_EQ(http(slow).status, 0) << "the client should have timed out";
  const auto start = std::chrono::steady_clock::now();
  server->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s) << "stop() waited for a held request";
  server->start();
}

TEST_F(ChaosTest, AuditEntriesCarryTheTimeOfTheAnswerInOrder) {
  const auto before = std::chrono::system_clock::now();
  ASSERT_EQ(call("POST", kPgs, pg("db", 2)).status, 201);
  std::this_thread::sleep_for(20ms);
  ASSERT_EQ(call("PATCH", kPgs + "/db", R"({"spec":{"replicas":3}})", "application/merge-patch+json").status, 200);
  const auto after = std::chrono::system_clock::now();
  const auto audit = server->audit();
  ASSERT_GE(audit.size(), 2u);
  const auto& post = audit[audit.size() - 2];
  const auto& patch = audit.back();
  EXPECT_EQ(patch.method, "PATCH");
  EXPECT_GE(post.time, before);
  EXPECT_LE(patch.time, after);
  EXPECT_GE(patch.time - post.time, 20ms);
}

}  // namespace
}  // namespace dha::testing::test
