#include <gtest/gtest.h>

#include <string>

#include "prometheus_response.hpp"

namespace dha::plugins {
namespace {

dha_status status_of(const std::string& body, std::string* message = nullptr) {
  try {
    (void)parse_instant_query_response(body);
    return DHA_OK;
  } catch (const sdk::Error& e) {
    if (message != nullptr) *message = e.what();
    return e.status();
  }
}

TEST(PrometheusResponse, TypedErrorsNeverZero) {
  const struct {
    const char* name;
    const char* body;
    dha_status want;
  } cases[] = {
      {"vector",
       R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"a"},"value":[1,"2.5"]}]}})",
       DHA_OK},
      {"scalar", R"({"status":"success","data":{"resultType":"scalar","result":[1,"7"]}})", DHA_OK},
      {"empty vector", R"({"status":"success","data":{"resultType":"vector","result":[]}})", DHA_NOT_FOUND},
      {"api error", R"({"status":"error","errorType":"bad_data","error":"parse error"})", DHA_FAILED_PRECONDITION},
      {"NaN", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"NaN"]}]}})",
       DHA_OUT_OF_RANGE},
      {"+Inf", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"+Inf"]}]}})",
       DHA_OUT_OF_RANGE},
      {"-Inf second sample",
       R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]},{"metric":{"pod":"b"},"value":[1,"-Inf"]}]}})",
       DHA_OUT_OF_RANGE},
      {"garbage", "<html>502 Bad Gateway</html>", DHA_DATA_LOSS},
      {"empty body", "", DHA_DATA_LOSS},
      {"truncated", R"({"status":"success","data":{"resultType":"vec)", DHA_DATA_LOSS},
      {"no status", R"({"data":{}})", DHA_DATA_LOSS},
      {"odd status", R"({"status":"partial","data":{}})", DHA_DATA_LOSS},
      {"matrix", R"({"status":"success","data":{"resultType":"matrix","result":[]}})", DHA_DATA_LOSS},
      {"numeric value", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})",
       DHA_DATA_LOSS},
      {"unparsable value",
       R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"12abc"]}]}})",
       DHA_DATA_LOSS},
      {"short pair", R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":["1"]}]}})",
       DHA_DATA_LOSS},
      {"label not string",
       R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}})",
       DHA_DATA_LOSS},
      {"array root", "[]", DHA_DATA_LOSS},
  };
  for (const auto& c : cases) EXPECT_EQ(status_of(c.body), c.want) << c.name;
}

TEST(PrometheusResponse, ReturnsTheWholeVector) {
  const sdk::Samples s = parse_instant_query_response(
      R"({"status":"success","data":{"resultType":"vector","result":[
          {"metric":{"__name__":"cnpg_backends_total","pod":"db-2"},"value":[1700000000.1,"420"]},
          {"metric":{"pod":"db-3"},"value":[1700000000.1,"-1.5e1"]}]}})");
  ASSERT_EQ(s.samples.size(), 2u);
  EXPECT_EQ(s.samples[0].labels.at("pod"), "db-2");
  EXPECT_EQ(s.samples[0].labels.at("__name__"), "cnpg_backends_total");
  EXPECT_DOUBLE_EQ(s.samples[0].value, 420);
  EXPECT_DOUBLE_EQ(s.samples[1].value, -15);
}

TEST(PrometheusResponse, MessagesSayWhy) {
  std::string message;
  status_of(R"({"status":"error","errorType":"bad_data","error":"unknown function foo"})", &message);
  EXPECT_EQ(message, "the metrics API refused the query (bad_data): unknown function foo");
  status_of(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"db-1"},"value":[1,"NaN"]}]}})",
      &message);
  EXPECT_EQ(message, "sample {pod=\"db-1\"} is NaN, not a finite number");
}

}  // namespace
}  // namespace dha::plugins
