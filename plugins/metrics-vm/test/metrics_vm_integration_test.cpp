// metrics-vm against a real VictoriaMetrics, and against tiny local servers that fail in each
// way ext/metrics.h names. Every failure must come back as its typed status, never a zero.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "canned_http_server.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "vm_metric_source.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

VmMetricSource source(const std::string& config) {
  const json::Document doc = json::parse(config, "config");
  return VmMetricSource(sdk::Host(), doc);
}

sdk::InstantQuery query(std::string promql, double timeout = 10) {
  return sdk::InstantQuery{std::move(promql), "tenant-a", "tenant-root", timeout};
}

dha_status status_of(const VmMetricSource& s, const sdk::InstantQuery& q, std::string* message = nullptr) {
  try {
    (void)s.instant_query(q);
    return DHA_OK;
  } catch (const sdk::Error& e) {
    if (message != nullptr) *message = e.what();
    return e.status();
  }
}

class MetricsVmAgainstVictoriaMetrics : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = new dha::testing::VictoriaMetrics();
    vm_->import_prometheus(
        "cnpg_backends_total{namespace=\"tenant-a\",pod=\"db-1\",state=\"active\"} 42\n"
        "cnpg_backends_total{namespace=\"tenant-a\",pod=\"db-2\",state=\"active\"} 8\n"
        "cnpg_backends_total{namespace=\"tenant-b\",pod=\"db-1\",state=\"active\"} 1000\n");
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
  }
  static dha::testing::VictoriaMetrics* vm_;
};
dha::testing::VictoriaMetrics* MetricsVmAgainstVictoriaMetrics::vm_ = nullptr;

TEST_F(MetricsVmAgainstVictoriaMetrics, ReturnsTheWholeInstantVector) {
  const VmMetricSource s = source(R"({"url": ")" + vm_->url() + R"("})");
  const sdk::Samples r = s.instant_query(query(R"(cnpg_backends_total{namespace="tenant-a"})"));
  ASSERT_EQ(r.samples.size(), 2u);
  double total = 0;
  for (const auto& sample : r.samples) {
    EXPECT_EQ(sample.labels.at("namespace"), "tenant-a");
    EXPECT_EQ(sample.labels.at("__name__"), "cnpg_backends_total");
    total += sample.value;
  }
  EXPECT_DOUBLE_EQ(total, 50);
  const sdk::Samples sum = s.instant_query(query(R"(sum(cnpg_backends_total{namespace="tenant-a"}))"));
  ASSERT_EQ(sum.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(sum.samples[0].value, 50);
}

TEST(MetricsVmCluster, ClusterStylePathThroughTheUrlTemplate) {
  // A VictoriaMetrics serving under /select/0/prometheus looks like a vmselect to the client, so
  // the cluster URL shape and the per-tenant template are exercised end to end.
  dha::testing::VictoriaMetrics::Options options;
  options.path_prefix = "/select/0/prometheus";
  dha::testing::VictoriaMetrics vm(options);
  vm.import_prometheus("cnpg_backends_total{namespace=\"tenant-b\",pod=\"db-1\"} 1000\n");
  const std::string root = vm.url().substr(0, vm.url().size() - options.path_prefix.size());
  const VmMetricSource s = source(R"({"urlTemplate": ")" + root + R"(/select/0/prometheus"})");
  const sdk::Samples r =
      s.instant_query(sdk::InstantQuery{R"(sum(cnpg_backends_total{namespace="tenant-b"}))", "tenant-b", "root", 10});
  ASSERT_EQ(r.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(r.samples[0].value, 1000);
}

// The metric source is the second line of tenant isolation: queries that select other
// namespaces, or nothing in particular, in their own text, sent as if the host's check had
// missed them, still read only the target namespace's series, because VictoriaMetrics itself
// adds the namespace matcher after expanding the query.
TEST_F(MetricsVmAgainstVictoriaMetrics, HostileQueriesReadOnlyTheTargetNamespace) {
  const VmMetricSource s = source(R"({"url": ")" + vm_->url() + R"("})");
  const char* hostile[] = {
      "sum(WITH (on(bool) = bool - 0) on(cnpg_backends_total))",
      "cnpg_backends_total",
      R"({__name__=~"cnpg.*"})",
      R"(cnpg_backends_total{namespace=~".+"})",
      R"(cnpg_backends_total{namespace="tenant-a"} or cnpg_backends_total{namespace="tenant-b"})",
      R"(sum(cnpg_backends_total{namespace!="tenant-a"}) or sum(cnpg_backends_total))",
  };
  for (const char* promql : hostile) {
    sdk::Samples r;
    try {
      r = s.instant_query(query(promql));
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.status(), DHA_NOT_FOUND) << promql << ": " << e.what();  // nothing readable is fine
      continue;
    }
    double total = 0;
    for (const auto& sample : r.samples) {
      if (sample.labels.count("namespace") != 0) {
        EXPECT_EQ(sample.labels.at("namespace"), "tenant-a") << promql;
      }
      total += sample.value;
    }
    // tenant-b's 1000 never shows, not even summed into a label-less result.
    EXPECT_LE(total, 50) << promql;
    EXPECT_FALSE(r.samples.empty()) << promql;
  }
}

TEST_F(MetricsVmAgainstVictoriaMetrics, EmptyVectorIsNotFound) {
  const VmMetricSource s = source(R"({"url": ")" + vm_->url() + R"("})");
  EXPECT_EQ(status_of(s, query(R"(cnpg_backends_total{namespace="tenant-c"})")), DHA_NOT_FOUND);
}

TEST_F(MetricsVmAgainstVictoriaMetrics, BadQueryIsARefusalNotAnOutage) {
  const VmMetricSource s = source(R"({"url": ")" + vm_->url() + R"("})");
  std::string message;
  EXPECT_EQ(status_of(s, query("sum(rate(x[5m]"), &message), DHA_FAILED_PRECONDITION) << message;
}

TEST_F(MetricsVmAgainstVictoriaMetrics, NoMonitoringNamespaceMeansNoUrl) {
  const VmMetricSource s =
      source(R"({"urlTemplate": "http://vmselect-shortterm.${monitoringNamespace}.svc:8481/select/0/prometheus"})");
  std::string message;
  EXPECT_EQ(status_of(s, sdk::InstantQuery{"up{namespace=\"tenant-a\"}", "tenant-a", std::nullopt, 1}, &message),
            DHA_UNAVAILABLE);
  EXPECT_NE(message.find("no monitoring namespace label"), std::string::npos) << message;
}

TEST(MetricsVmFaults, VictoriaMetricsDownIsUnavailable) {
  dha::testing::VictoriaMetrics vm;
  const VmMetricSource s = source(R"({"url": ")" + vm.url() + R"("})");
  vm.stop();
  std::string message;
  EXPECT_EQ(status_of(s, query("up", 2), &message), DHA_UNAVAILABLE);
  EXPECT_NE(message.find("cannot reach"), std::string::npos) << message;
}

TEST(MetricsVmFaults, SlowServerHitsTheDeadline) {
  test::CannedHttpServer silent("");
  const VmMetricSource s = source(R"({"url": ")" + silent.url() + R"(", "timeoutSeconds": 10})");
  const auto start = std::chrono::steady_clock::now();
  // The host's deadline (0.5 s) is shorter than the configured 10 s and must win.
  EXPECT_EQ(status_of(s, query("up", 0.5)), DHA_DEADLINE_EXCEEDED);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_GE(took, std::chrono::milliseconds(400));
}

TEST(MetricsVmFaults, EachBadAnswerHasItsStatus) {
  const std::string nan_body =
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"db-1"},"value":[1,"NaN"]}]}})";
  const struct {
    const char* name;
    std::string answer;
    dha_status want;
  } cases[] = {
      {"HTTP 500", test::CannedHttpServer::http(500, "internal error", "text/plain"), DHA_UNAVAILABLE},
      {"HTTP 503 with an error document",
       test::CannedHttpServer::http(503, R"({"status":"error","errorType":"unavailable","error":"busy"})"),
       DHA_UNAVAILABLE},
      {"HTTP 422 with an error document",
       test::CannedHttpServer::http(422, R"({"status":"error","errorType":"bad_data","error":"parse"})"),
       DHA_FAILED_PRECONDITION},
      {"HTTP 404 without a document", test::CannedHttpServer::http(404, "not found", "text/plain"), DHA_UNAVAILABLE},
      {"garbage", test::CannedHttpServer::http(200, "\x01\x02 not json at all"), DHA_DATA_LOSS},
      {"html", test::CannedHttpServer::http(200, "<html><body>login</body></html>", "text/html"), DHA_DATA_LOSS},
      {"empty vector",
       test::CannedHttpServer::http(200, R"({"status":"success","data":{"resultType":"vector","result":[]}})"),
       DHA_NOT_FOUND},
      {"NaN", test::CannedHttpServer::http(200, nan_body), DHA_OUT_OF_RANGE},
      {"too large", test::CannedHttpServer::http(200, std::string(2048, ' ') + "{}"), DHA_RESOURCE_EXHAUSTED},
      {"connection closed mid-answer", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"status\"", DHA_UNAVAILABLE},
  };
  for (const auto& c : cases) {
    test::CannedHttpServer server(c.answer);
    const VmMetricSource s = source(R"({"url": ")" + server.url() + R"(", "maxResponseBytes": 1024})");
    std::string message;
    EXPECT_EQ(status_of(s, query("up", 5), &message), c.want) << c.name << ": " << message;
  }
}

TEST(MetricsVmFaults, BearerTokenIsSentAndReReadFromItsFile) {
  test::CannedHttpServer server(test::CannedHttpServer::http(
      200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]}})"));
  const std::string token_file = ::testing::TempDir() + "/dha-token-" + std::to_string(::getpid());
  std::ofstream(token_file) << "first-token\n";
  const VmMetricSource s = source(R"({"url": ")" + server.url() + R"(", "bearerTokenFile": ")" + token_file + R"("})");
  ASSERT_EQ(status_of(s, query("up")), DHA_OK);
  EXPECT_NE(server.last_request().find("Authorization: Bearer first-token\r\n"), std::string::npos)
      << server.last_request();
  std::ofstream(token_file) << "rotated-token";
  ASSERT_EQ(status_of(s, query("up")), DHA_OK);
  EXPECT_NE(server.last_request().find("Authorization: Bearer rotated-token\r\n"), std::string::npos);
  std::filesystem::remove(token_file);
  EXPECT_EQ(status_of(s, query("up")), DHA_UNAUTHENTICATED);
}

TEST(MetricsVmFaults, QueryIsSentScopedToTheTargetNamespace) {
  test::CannedHttpServer server(test::CannedHttpServer::http(
      200, R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]}]}})"));
  const VmMetricSource s = source(R"({"url": ")" + server.url() + R"(/select/0/prometheus/"})");
  ASSERT_EQ(status_of(s, query(R"(sum(x{namespace="tenant-a"}))")), DHA_OK);
  EXPECT_EQ(server.last_request().rfind(
                "GET /select/0/prometheus/api/v1/query?query=sum%28x%7Bnamespace%3D%22tenant-a%22%7D%29"
                "&extra_label=namespace%3Dtenant-a HTTP/1.1\r\n",
                0),
            0u)
      << server.last_request();
  EXPECT_EQ(server.last_request().find("Authorization"), std::string::npos);
}

}  // namespace
}  // namespace dha::plugins
