// What the operator serves besides reconciling, as a cluster would reach it: /metrics over TLS
// behind TokenReview + SubjectAccessReview, the probes, the admission webhook. And a fixed
// target is noticed through its watch, not the next sync (docs/behaviour.md#reconcile-requeue).
#include <arpa/inet.h>
#include <curl/curl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dha/kube/json.hpp"
#include "dha/testing/test_certificates.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

struct Reply {
  long status = 0;
  std::string body;
};

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// One HTTPS (or HTTP) request verified against `ca_file`.
Reply request(const std::string& url, const std::string& ca_file, const std::string& token = {},
              const std::string& body = {}) {
  Reply r;
  CURL* c = curl_easy_init();
  curl_slist* headers = nullptr;
  if (!token.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
  if (!body.empty()) {
    headers = curl_slist_append(headers, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  }
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  if (!ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, ca_file.c_str());
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
  if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(c);
  return r;
}

bool accepts_connections(const char* address, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, address, &to.sin_addr);
  const bool connected = ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0;
  ::close(fd);
  return connected;
}

std::string admission_review(const std::string& username) {
  const std::string old_hr =
      R"({"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"postgres-db","namespace":"tenant-a",)"
      R"("annotations":{"apps.cozystack.io-autoscaling.cozystack.io/managed-by":"db-dha"}},"spec":{"values":{"replicas":3}}})";
  std::string new_hr = old_hr;
  new_hr.replace(new_hr.find("\"replicas\":3"), 12, "\"replicas\":5");
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"uid-1",)"
         R"("kind":{"group":"helm.toolkit.fluxcd.io","version":"v2","kind":"HelmRelease"},"operation":"UPDATE",)"
         R"("userInfo":{"username":")" +
         username + R"("},"object":)" + new_hr + R"(,"oldObject":)" + old_hr + "}}";
}

using EndpointsTest = OperatorWorld;

TEST_F(EndpointsTest, SecureMetricsProbesAndWebhookAreServed) {
  const auto cert = testing::issue_test_certificate({"localhost"}, {"127.0.0.1"});
  const std::string certs = dir_ + "/certs";
  std::filesystem::create_directories(certs);
  std::ofstream(certs + "/tls.crt") << cert.cert_pem;
  std::ofstream(certs + "/tls.key") << cert.key_pem;
  std::ofstream(dir_ + "/ca.crt") << cert.ca_pem;
  const std::string ca = dir_ + "/ca.crt";
  const auto probe_port = testing::free_loopback_port();
  const auto webhook_port = testing::free_loopback_port();
  start_operator('a', {{"--metrics-secure", "true"},
                       {"--cert-dir", certs},
                       {"--enable-webhook", "true"},
                       {"--webhook-port", std::to_string(webhook_port)},
                       {"--webhook-host", "127.0.0.1"},
                       {"--health-probe-bind-address", fmt::format("127.0.0.1:{}", probe_port)}});
  const std::string metrics = fmt::format("https://127.0.0.1:{}/metrics", metrics_port());
  ASSERT_TRUE(eventually([&] { return request(metrics, ca).status == 401; }, 20s)) << "no metrics server";
  EXPECT_EQ(request(metrics, ca, "no-such-token").status, 401);
  EXPECT_EQ(request(metrics, ca, cluster_->token("tenant")).status, 403);  // authenticated, not authorized
  const Reply scraped = request(metrics, ca, cluster_->token("scraper"));
  EXPECT_EQ(scraped.status, 200);
  EXPECT_NE(scraped.body.find("db_autoscaler_leader 1"), std::string::npos) << scraped.body;
  // The families controller-runtime operators export, next to ours.
  for (const char* family :
       {"\nworkqueue_adds_total{name=\"dha\"} ", "\nworkqueue_depth{name=\"dha\"} ",
        "\nworkqueue_longest_running_processor_seconds{name=\"dha\"} ",
        "\ncontroller_runtime_max_concurrent_reconciles{controller=\"dha\"} 8\n",
        "\nrest_client_requests_total{code=\"200\",method=\"GET\",host=\"127.0.0.1:",
        "\nprocess_resident_memory_bytes ", "\nprocess_start_time_seconds ", "\ndb_autoscaler_build_info{version=\""}) {
    EXPECT_NE(scraped.body.find(family), std::string::npos) << family << " not in\n" << scraped.body;
  }
  EXPECT_NE(request(fmt::format("http://127.0.0.1:{}/metrics", metrics_port()), "").status, 200)
      << "metrics must not be served in plain HTTP";

  EXPECT_EQ(request(fmt::format("http://127.0.0.1:{}/healthz", probe_port), "").status, 200);
  EXPECT_TRUE(eventually(
      [&] { return request(fmt::format("http://127.0.0.1:{}/readyz", probe_port), "").status == 200; }, 10s));

  const std::string webhook = fmt::format("https://127.0.0.1:{}/validate-helmrelease-replicas", webhook_port);
  const Reply denied = request(webhook, ca, {}, admission_review("tenant-user"));
  ASSERT_EQ(denied.status, 200) << denied.body;
  auto d = kube::parse_json(denied.body);
  EXPECT_FALSE(kube::find_path(d, {"response", "allowed"})->GetBool());
  EXPECT_EQ(kube::string_at(d, {"response", "uid"}), "uid-1");
  // The apps API is the one identity allowed; the operator's own is not (it never writes
  // HelmReleases).
  const Reply allowed = request(webhook, ca, {}, admission_review("system:serviceaccount:cozy-system:cozystack-api"));
  auto a = kube::parse_json(allowed.body);
  EXPECT_TRUE(kube::find_path(a, {"response", "allowed"})->GetBool()) << allowed.body;
  const Reply own = request(webhook, ca, {}, admission_review(kOperatorA));
  EXPECT_FALSE(kube::find_path(kube::parse_json(own.body), {"response", "allowed"})->GetBool()) << own.body;

  // --webhook-host: the webhook listens on that address only (it used to bind 0.0.0.0).
  EXPECT_TRUE(accepts_connections("127.0.0.1", webhook_port));
  EXPECT_FALSE(accepts_connections("127.0.0.2", webhook_port));
}

TEST_F(EndpointsTest, SecureMetricsWithoutACertificateServeASelfSignedOne) {
  auto& op = start_operator(
      'a', {{"--metrics-secure", "true"}, {"--cert-dir", dir_ + "/no-certs-here"}, {"--enable-webhook", "false"}});
  const std::string marker = "self-signed certificate from ";
  ASSERT_TRUE(eventually([&] { return op.log().find(marker) != std::string::npos; }, 20s)) << op.log();
  const std::string log = op.log();
  const auto from = log.find(marker) + marker.size();
  const std::string generated = log.substr(from, log.find(' ', from) - from);
  const std::string metrics = fmt::format("https://127.0.0.1:{}/metrics", metrics_port());
  ASSERT_TRUE(eventually([&] { return request(metrics, generated + "/tls.crt").status == 401; }, 20s))
      << "no HTTPS metrics with the generated certificate: " << log;
  EXPECT_EQ(request(metrics, generated + "/tls.crt", "scraper-token").status, 200);
  EXPECT_TRUE(op.running()) << "the operator must keep running without a provided certificate";
}

// The README's package command runs the webhook (on by default) without a certificate: it
// serves a self-signed one, with a warning, instead of refusing to start. Without --webhook-host
// it listens on loopback only: a command run on a host opens no admission endpoint to its networks.
TEST_F(EndpointsTest, TheWebhookWithoutACertificateServesASelfSignedOneOnLoopback) {
  const auto webhook_port = testing::free_loopback_port();
  auto& op = start_operator('a', {{"--cert-dir", dir_ + "/no-certs-here"},
                                  {"--enable-webhook", "true"},
                                  {"--webhook-port", std::to_string(webhook_port)}});
  const std::string marker = "serving the webhook with a self-signed certificate from ";
  ASSERT_TRUE(eventually([&] { return op.log().find(marker) != std::string::npos || !op.running(); }, 20s)) << op.log();
  const std::string log = op.log();
  ASSERT_NE(log.find(marker), std::string::npos) << log;
  const auto from = log.find(marker) + marker.size();
  const std::string generated = log.substr(from, log.find(' ', from) - from);
  const std::string webhook = fmt::format("https://127.0.0.1:{}/validate-helmrelease-replicas", webhook_port);
  Reply reply;
  ASSERT_TRUE(eventually(
      [&] {
        reply = request(webhook, generated + "/tls.crt", {}, admission_review("tenant-user"));
        return reply.status == 200;
      },
      20s))
      << "no HTTPS webhook with the generated certificate: " << log;
  EXPECT_FALSE(kube::find_path(kube::parse_json(reply.body), {"response", "allowed"})->GetBool()) << reply.body;
  EXPECT_TRUE(op.running()) << "the operator must keep running without a provided certificate";
  // Another loopback address reaches every interface a wildcard bind would serve.
  EXPECT_FALSE(accepts_connections("127.0.0.2", webhook_port)) << "the webhook listens beyond loopback by default";
  EXPECT_NE(op.log().find(fmt::format("webhook server listening on 127.0.0.1:{}", webhook_port)), std::string::npos)
      << op.log();
}

TEST_F(EndpointsTest, AFixedTargetIsNoticedThroughItsWatchNotTheNextSync) {
  admin_->create(
      {"apps.cozystack.io", "v1alpha1", "postgreses", kNamespace, ""},
      kube::parse_json(R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres",)"
                       R"("metadata":{"name":"db","namespace":"tenant-a"},"spec":{"resourcesPreset":"t1.micro"}})"));
  create_workload_monitor(2);
  set_load(150);
  create_dha({});
  start_operator('a', {{"--sync-period", "120s"}});
  const auto not_scalable =
      wait_for_dha([](const rapidjson::Value& d) { return condition_of(d, "ScalingActive") == "NotScalable"; }, 30s);
  ASSERT_TRUE(not_scalable.reached) << not_scalable.describe();
  EXPECT_EQ(condition_of(not_scalable.dha, "ScalingActive", "message"), "target has no replicas value");
  EXPECT_EQ(condition_of(not_scalable.dha, "AbleToScale", "status"), "False");
  EXPECT_TRUE(target_patches().empty());

  admin_->merge_patch({"apps.cozystack.io", "v1alpha1", "postgreses", kNamespace, kApp}, R"({"spec":{"replicas":2}})");
  // Well before the 120 s sync period: the target's watch brought the DHA back.
  ASSERT_TRUE(eventually([&] { return condition("ScalingActive") == "Ready"; }, 15s));
  EXPECT_TRUE(eventually([&] { return replicas() == 3; }, 15s));
}

TEST_F(EndpointsTest, BadFlagsAndMissingPluginsStopTheProcessWithAClearMessage) {
  auto& bad_period = start_operator('a', {{"--sync-period", "soon"}});
  ASSERT_TRUE(eventually([&] { return !bad_period.running(); }, 10s));
  EXPECT_EQ(bad_period.stop(), 2);
  EXPECT_NE(bad_period.log().find("--sync-period"), std::string::npos) << bad_period.log();

  // The grouped answers' age is counted in whole seconds: 1500ms would quietly be 1 s.
  auto& fractional_age = start_operator('a', {{"--grouped-query-max-age", "1500ms"}});
  ASSERT_TRUE(eventually([&] { return !fractional_age.running(); }, 10s));
  EXPECT_EQ(fractional_age.stop(), 2);
  EXPECT_NE(fractional_age.log().find("--grouped-query-max-age: \"1500ms\" is not whole seconds"), std::string::npos)
      << fractional_age.log();

  auto& no_workers = start_operator('a', {{"--workers", "0"}});
  ASSERT_TRUE(eventually([&] { return !no_workers.running(); }, 10s));
  EXPECT_EQ(no_workers.stop(), 2);
  EXPECT_NE(no_workers.log().find("--workers: Value 0 not in range 1 to 64"), std::string::npos) << no_workers.log();

  auto& missing = start_operator('b', {{"--plugins", "postgres,nosuch"}});
  ASSERT_TRUE(eventually([&] { return !missing.running(); }, 10s));
  EXPECT_EQ(missing.stop(), 1);
  EXPECT_NE(missing.log().find("plugin \"nosuch\""), std::string::npos) << missing.log();
}

}  // namespace
}  // namespace dha::optest
