// PluginUnderTest's direct calls of the gate, actuator and metric source capabilities: the
// request crosses the C ABI as the operator sends it, the answer comes back as the SDK's type,
// and a missing capability or a garbage answer is a typed error naming the plugin and call.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "dha/sdk/json.hpp"
#include "dha/testing/fake_host.hpp"
#include "dha/testing/plugin_under_test.hpp"

namespace {

using dha::testing::FakeHost;
using dha::testing::PluginUnderTest;

dha::sdk::GateRequest gate_request(std::int64_t now, std::int64_t current, std::int64_t proposed) {
  dha::sdk::GateRequest r;
  r.now = now;
  r.dha = {"tenant-a", "orders"};
  r.proposal = {"Scale", current, proposed};
  return r;
}

dha::sdk::RangeQuery range(std::int64_t start, std::int64_t end) {
  dha::sdk::RangeQuery q;
  q.query = "sum(up)";
  q.namespace_name = "tenant-a";
  q.start = start;
  q.end = end;
  q.step = 60;
  return q;
}

// The status and message of the dha::sdk::Error `call` throws ("" / DHA_OK when it does not).
std::pair<dha_status, std::string> error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const dha::sdk::Error& e) {
    return {e.status(), e.what()};
  }
  return {DHA_OK, ""};
}

TEST(PluginUnderTestDirectCalls, GateVerdictComesBackAsTheSdkTypeWithTheRequestAsSent) {
  FakeHost host(5000);
  auto gate = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture");
  const auto spec = dha::sdk::json::parse(R"({"minReplicas": 2, "maxReplicas": 6})", "spec");
  auto request = gate_request(host.clock().now(), 2, 5);
  request.spec = &spec;
  EXPECT_EQ(gate.evaluate(request), dha::sdk::Verdict::clamp(3, "FixtureHold", "held at 3"));
  EXPECT_TRUE(host.logged(R"("now":5000)")) << "the request's now reached the plugin";
  EXPECT_TRUE(host.logged(R"("spec":{"minReplicas":2,"maxReplicas":6})"));
  EXPECT_TRUE(host.logged(R"("proposal":{"kind":"Scale","currentReplicas":2,"replicas":5})"));
}

TEST(PluginUnderTestDirectCalls, AClampTheOperatorRefusesIsAnErrorInItsWords) {
  FakeHost host;
  auto gate = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture");
  // The fixture clamps to 3; from 4 toward 5 that moves away from currentReplicas.
  const auto [status, message] = error_of([&] { gate.evaluate(gate_request(0, 4, 5)); });
  EXPECT_EQ(status, DHA_DATA_LOSS);
  EXPECT_NE(message.find("clamp to 3 moves away from currentReplicas 4"), std::string::npos) << message;
  EXPECT_NE(message.find("GateError"), std::string::npos) << message;
}

TEST(PluginUnderTestDirectCalls, ActuatorPlanAndMetricAnswersComeBackAsSdkTypes) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture");
  const auto target = dha::sdk::json::parse(R"({"metadata": {"name": "orders"}, "spec": {"replicas": 3}})", "target");
  dha::sdk::ActuatorRequest request;
  request.dha = {"tenant-a", "orders"};
  request.target = &target;
  request.current_replicas = 3;
  request.desired_replicas = 4;
  const auto plan = plugin.plan(request);
  ASSERT_EQ(plan.requests.size(), 1u);
  EXPECT_EQ(plan.requests[0].subresource, "scale");
  EXPECT_EQ(dha::sdk::json::stringify(plan.requests[0].body), R"({"spec":{"replicas":4}})");
  EXPECT_TRUE(host.logged(R"("target":{"metadata":{"name":"orders"},"spec":{"replicas":3}})"));

  const auto samples = plugin.instant_query({"sum(up)", "tenant-a", std::nullopt, 5});
  ASSERT_EQ(samples.samples.size(), 1u);
  EXPECT_EQ(samples.samples[0].value, 42);
  EXPECT_EQ(samples.samples[0].labels.at("pod"), "db-2");

  const auto series = plugin.range_query(range(100, 160));
  ASSERT_EQ(series.series.size(), 1u);
  EXPECT_EQ(series.series[0].points, (std::vector<std::pair<std::int64_t, double>>{{100, 1}, {160, 2}}));
  EXPECT_TRUE(host.logged(R"("start":100,"end":160,"step":60)"));
}

TEST(PluginUnderTestDirectCalls, EveryGarbageAnswerIsDataLossNamingPluginAndCall) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture-garbage");
  const auto target = dha::sdk::json::parse(R"({"metadata": {"name": "orders"}})", "target");
  dha::sdk::ActuatorRequest plan_request;
  plan_request.target = &target;
  plan_request.desired_replicas = 4;
  struct Row {
    const char* call;
    std::function<void()> run;
    const char* why;  // part of the operator's reason
  };
  const Row rows[] = {
      {"evaluate", [&] { plugin.evaluate(gate_request(0, 3, 4)); }, "response is not a JSON object"},
      {"plan", [&] { plugin.plan(plan_request); }, "subresource must be"},
      {"instant_query",
       [&] {
         plugin.instant_query({"sum(up)", "tenant-a", std::nullopt, 5});
       },
       "value"},
      {"range_query", [&] { plugin.range_query(range(100, 160)); }, "points are not in increasing time"},
  };
  for (const auto& row : rows) {
    const auto [status, message] = error_of(row.run);
    EXPECT_EQ(status, DHA_DATA_LOSS) << row.call << ": " << message;
    EXPECT_NE(message.find(std::string("\"kit-fixture-garbage\" ") + row.call), std::string::npos) << message;
    EXPECT_NE(message.find(row.why), std::string::npos) << row.call << ": " << message;
  }
}

TEST(PluginUnderTestDirectCalls, AnEngineCallsGarbageKeepsTheStatusItHadInSdk1_0) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture-garbage");
  const auto [status, message] = error_of([&] { plugin.topology(R"({"metadata": {"name": "w"}})"); });
  EXPECT_EQ(status, DHA_INVALID_ARGUMENT) << message;
  EXPECT_NE(message.find("plugin \"kit-fixture-garbage\" topology answered"), std::string::npos) << message;
}

TEST(PluginUnderTestDirectCalls, AMissingCapabilityIsUnimplementedNamingIt) {
  FakeHost host;
  auto engine = PluginUnderTest::load(DHA_POSTGRES_PLUGIN, host);
  auto fixture = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture");
  auto source_1_0 = PluginUnderTest::load(DHA_METRICS_ABI_1_0_PLUGIN, host);
  dha::sdk::ActuatorRequest plan_request;
  plan_request.desired_replicas = 4;
  struct Row {
    std::function<void()> run;
    const char* message;
  };
  const Row rows[] = {
      {[&] { engine.evaluate(gate_request(0, 3, 4)); }, "offers no dha.gate/1 capability"},
      {[&] { engine.plan(plan_request); }, "offers no dha.actuator/1 capability"},
      {[&] {
         engine.instant_query({"sum(up)", "tenant-a", std::nullopt, 5});
       },
       "offers no dha.metrics/1 capability"},
      {[&] { engine.range_query(range(0, 60)); }, "offers no dha.metrics/1 capability"},
      {[&] { fixture.topology("{}"); }, "offers no dha.engine/1 capability"},
      {[&] { source_1_0.range_query(range(0, 60)); }, "(plugin ABI 1.0) has no range queries"},
  };
  for (const auto& row : rows) {
    const auto [status, message] = error_of(row.run);
    EXPECT_EQ(status, DHA_UNIMPLEMENTED) << message;
    EXPECT_NE(message.find(row.message), std::string::npos) << message;
  }
  // An instant query still reaches the 1.0 source.
  EXPECT_EQ(source_1_0.instant_query({"sum(up)", "tenant-a", std::nullopt, 5}).samples.at(0).value, 42);
}

TEST(PluginUnderTestDirectCalls, ARangeNoSourceShouldRunIsRefusedBeforeTheCall) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(DHA_KIT_FIXTURE_PLUGIN, host, "{}", "kit-fixture");
  const auto [status, message] = error_of([&] { plugin.range_query(range(160, 100)); });
  EXPECT_EQ(status, DHA_INVALID_ARGUMENT);
  EXPECT_NE(message.find("end is before start"), std::string::npos) << message;
  EXPECT_FALSE(host.logged("range_query")) << "the plugin was called with a range it must refuse";
}

}  // namespace
