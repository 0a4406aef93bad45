// A metric source built against ABI 1.0 has no range queries: a predictive DHA then gets no
// forecast, its decision goes on without one, and the reason is what its trace will show.

#include <gtest/gtest.h>

#include <string>

#include "dha/model/spec.hpp"
#include "dha/sdk/json.hpp"
#include "pipeline/predictive_forecast.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace dha::pipeline {
namespace {

TEST(ForecastWithoutRangeQueries, AnABI10SourceGivesNoForecastAndTheReason) {
  plugin_host::PluginRegistry registry;
  registry.load_file(std::string(DHA_ABI_FIXTURE_DIR) + "/metrics_abi_1_0.so");
  const auto source = registry.create("fixture-metrics-1-0");
  sdk::Queries queries;
  queries.driver["ReadConnections"] = R"(sum(cnpg_backends_total{namespace="${namespace}"}))";
  const model::DhaSpec spec = model::parse_spec(sdk::json::parse(R"({"minReplicas":2,"maxReplicas":8,
      "targetRef":{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","name":"db"},
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],
      "behavior":{"policy":"Adaptive","adaptive":{"predictive":true}}})",
                                                                 "spec"));
  HistoryCache cache;
  model::Observation obs;
  obs.forecast = model::Forecast{9, 60};  // whatever was there is replaced
  observe_forecast(cache, {*source, queries, {"tenant-a", "db", "db"}, std::nullopt, 5}, spec,
                   {"uid-1", 1, 1'700'000'000, 120, 60}, obs);
  EXPECT_FALSE(obs.forecast);
  EXPECT_NE(obs.forecast_missing.find("ReadConnections range query failed (UNIMPLEMENTED)"), std::string::npos)
      << obs.forecast_missing;
  EXPECT_NE(obs.forecast_missing.find("plugin ABI 1.0"), std::string::npos) << obs.forecast_missing;
}

}  // namespace
}  // namespace dha::pipeline
