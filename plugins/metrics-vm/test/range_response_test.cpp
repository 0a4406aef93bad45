#include <gtest/gtest.h>

#include <string>

#include "prometheus_response.hpp"
#include "vm_range_query.hpp"

namespace dha::plugins {
namespace {

dha_status status_of(const std::string& body, std::int64_t max_points = 100) {
  try {
    (void)parse_range_query_response(body, max_points);
    return DHA_OK;
  } catch (const sdk::Error& e) {
    return e.status();
  }
}

std::string matrix(const std::string& result) {
  return R"({"status":"success","data":{"resultType":"matrix","result":)" + result + "}}";
}

TEST(RangeResponse, TypedErrorsNeverZero) {
  const struct {
    const char* name;
    std::string body;
    std::int64_t max_points;
    dha_status want;
  } cases[] = {
      {"matrix", matrix(R"([{"metric":{"pod":"a"},"values":[[60,"1"],[120,"2"]]}])"), 100, DHA_OK},
      {"no series", matrix("[]"), 100, DHA_NOT_FOUND},
      {"series without points", matrix(R"([{"metric":{},"values":[]}])"), 100, DHA_NOT_FOUND},
      {"only NaN points", matrix(R"([{"metric":{},"values":[[60,"NaN"]]}])"), 100, DHA_NOT_FOUND},
      {"api error", R"({"status":"error","errorType":"bad_data","error":"parse error"})", 100, DHA_FAILED_PRECONDITION},
      {"a vector", R"({"status":"success","data":{"resultType":"vector","result":[]}})", 100, DHA_DATA_LOSS},
      {"garbage", "<html>502 Bad Gateway</html>", 100, DHA_DATA_LOSS},
      {"truncated", matrix(R"([{"metric":{},"values":[[60,"1"])").substr(0, 70), 100, DHA_DATA_LOSS},
      {"values not an array", matrix(R"([{"metric":{},"values":{}}])"), 100, DHA_DATA_LOSS},
      {"no values", matrix(R"([{"metric":{}}])"), 100, DHA_DATA_LOSS},
      {"numeric value", matrix(R"([{"metric":{},"values":[[60,1]]}])"), 100, DHA_DATA_LOSS},
      {"time not a number", matrix(R"([{"metric":{},"values":[["60","1"]]}])"), 100, DHA_DATA_LOSS},
      {"huge time", matrix(R"([{"metric":{},"values":[[1e300,"1"]]}])"), 100, DHA_DATA_LOSS},
      {"time going back", matrix(R"([{"metric":{},"values":[[120,"1"],[60,"2"]]}])"), 100, DHA_DATA_LOSS},
      {"more points than asked", matrix(R"([{"metric":{},"values":[[60,"1"],[120,"2"],[180,"3"]]}])"), 2,
       DHA_RESOURCE_EXHAUSTED},
  };
  for (const auto& c : cases) EXPECT_EQ(status_of(c.body, c.max_points), c.want) << c.name;
}

TEST(RangeResponse, KeepsEverySeriesAndLeavesOutNonFiniteSteps) {
  const sdk::RangeResult r = parse_range_query_response(
      matrix(R"([{"metric":{"pod":"db-2"},"values":[[60,"1.5"],[120,"NaN"],[180,"+Inf"],[240,"4"]]},
                 {"metric":{"pod":"db-3"},"values":[[120,"7"]]}])"),
      100);
  ASSERT_EQ(r.series.size(), 2u);
  EXPECT_EQ(r.series[0].labels.at("pod"), "db-2");
  EXPECT_EQ(r.series[0].points, (std::vector<std::pair<std::int64_t, double>>{{60, 1.5}, {240, 4}}));
  EXPECT_EQ(r.series[1].points, (std::vector<std::pair<std::int64_t, double>>{{120, 7}}));
}

TEST(RangeQueryUrl, CarriesTheRangeAndTheSameNamespaceScopeAsAnInstantQuery) {
  sdk::RangeQuery q;
  q.query = R"(sum(up{namespace="tenant-a"}))";
  q.namespace_name = "tenant-a";
  q.start = 1700000000;
  q.end = 1700003600;
  q.step = 60;
  EXPECT_EQ(range_query_url("http://vm:8428", q),
            "http://vm:8428/api/v1/query_range?query=sum%28up%7Bnamespace%3D%22tenant-a%22%7D%29"
            "&extra_label=namespace%3Dtenant-a&start=1700000000&end=1700003600&step=60s");
  q.namespace_name.clear();
  EXPECT_THROW((void)range_query_url("http://vm:8428", q), sdk::Error);
}

TEST(RangeQueryInput, RefusesRangesNoSourceShouldRun) {
  const auto status = [](const std::string& json) -> int {
    try {
      (void)sdk::RangeQuery::from_json(sdk::json::parse(json, "test"));
      return DHA_OK;
    } catch (const sdk::Error& e) {
      return e.status();
    }
  };
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":0,"end":600,"step":60})"), DHA_OK);
  EXPECT_EQ(status(R"({"query":"","namespace":"a","start":0,"end":600,"step":60})"), DHA_INVALID_ARGUMENT);
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":600,"end":0,"step":60})"), DHA_INVALID_ARGUMENT);
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":0,"end":600,"step":0})"), DHA_INVALID_ARGUMENT);
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":0,"end":600,"step":-60})"), DHA_INVALID_ARGUMENT);
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":0,"end":"600","step":60})"), DHA_INVALID_ARGUMENT);
  // A week at one-minute steps fits; a week at ten-second steps does not.
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":0,"end":604800,"step":60})"), DHA_OK);
  EXPECT_EQ(status(R"({"query":"up","namespace":"a","start":0,"end":604800,"step":10})"), DHA_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace dha::plugins
