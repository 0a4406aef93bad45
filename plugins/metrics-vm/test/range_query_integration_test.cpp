// metrics-vm's range queries against a real VictoriaMetrics holding an hour of two tenants'
// series, and against a server answering garbage.
#include <gtest/gtest.h>

#include <string>

#include "canned_http_server.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "vm_metric_source.hpp"

namespace dha::plugins {
namespace {

namespace json = sdk::json;

VmMetricSource source(const std::string& url) {
  const json::Document doc = json::parse(R"({"url": ")" + url + R"("})", "config");
  return VmMetricSource(sdk::Host(), doc);
}

constexpr std::int64_t kStart = 1700000040;  // a multiple of 60: steps land on the samples

sdk::RangeQuery range(std::string promql, std::int64_t minutes = 60) {
  sdk::RangeQuery q;
  q.query = std::move(promql);
  q.namespace_name = "tenant-a";
  q.start = kStart;
  q.end = kStart + (minutes - 1) * 60;
  q.step = 60;
  q.timeout_seconds = 10;
  return q;
}

class RangeQueryAgainstVictoriaMetrics : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = new dha::testing::VictoriaMetrics();
    std::string d;
    for (int i = 0; i < 60; ++i) {
      const std::string at = " " + std::to_string((kStart + i * 60) * 1000) + "\n";
      d += R"(cnpg_backends_total{namespace="tenant-a",pod="db-2"} )" + std::to_string(10 + i) + at;
      d += R"(cnpg_backends_total{namespace="tenant-b",pod="db-2"} )" + std::to_string(1000 + i) + at;
    }
    vm_->import_prometheus(d);
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
  }
  static dha::testing::VictoriaMetrics* vm_;
};
dha::testing::VictoriaMetrics* RangeQueryAgainstVictoriaMetrics::vm_ = nullptr;

TEST_F(RangeQueryAgainstVictoriaMetrics, ReturnsOnePointPerStep) {
  const sdk::RangeResult r = source(vm_->url()).range_query(range(R"(sum(cnpg_backends_total{namespace="tenant-a"}))"));
  ASSERT_EQ(r.series.size(), 1u);
  ASSERT_EQ(r.series[0].points.size(), 60u);
  for (std::size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(r.series[0].points[i].first, kStart + static_cast<std::int64_t>(i) * 60);
    EXPECT_DOUBLE_EQ(r.series[0].points[i].second, 10.0 + static_cast<double>(i));
  }
}

// The same server-side scope as an instant query: a query naming every namespace still reads
// only the target's.
TEST_F(RangeQueryAgainstVictoriaMetrics, ReadsOnlyTheTargetNamespace) {
  const sdk::RangeResult r = source(vm_->url()).range_query(range(R"(sum(cnpg_backends_total{namespace=~".+"}))"));
  ASSERT_EQ(r.series.size(), 1u);
  for (const auto& [t, v] : r.series[0].points) EXPECT_LT(v, 100) << "tenant-b's series leaked in at " << t;
}

TEST_F(RangeQueryAgainstVictoriaMetrics, NoSeriesIsNotFoundAndABadQueryARefusal) {
  const VmMetricSource s = source(vm_->url());
  const auto status = [&](const sdk::RangeQuery& q) -> int {
    try {
      (void)s.range_query(q);
      return DHA_OK;
    } catch (const sdk::Error& e) {
      return e.status();
    }
  };
  EXPECT_EQ(status(range(R"(cnpg_backends_total{namespace="tenant-c"})")), DHA_NOT_FOUND);
  EXPECT_EQ(status(range("sum(")), DHA_FAILED_PRECONDITION);
}

TEST(RangeQueryFaults, GarbageAndErrorsAreTyped) {
  const struct {
    int status;
    const char* body;
    dha_status want;
  } cases[] = {
      {200, "<html>oops</html>", DHA_DATA_LOSS},
      {200, R"({"status":"success","data":{"resultType":"vector","result":[]}})", DHA_DATA_LOSS},
      {503, "overloaded", DHA_UNAVAILABLE},
      {422, R"({"status":"error","errorType":"bad_data","error":"cannot parse"})", DHA_FAILED_PRECONDITION},
  };
  for (const auto& c : cases) {
    test::CannedHttpServer server(test::CannedHttpServer::http(c.status, c.body));
    try {
      (void)source(server.url()).range_query(range("up"));
      ADD_FAILURE() << c.body << " was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.status(), c.want) << c.body << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace dha::plugins
