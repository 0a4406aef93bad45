// Plugin gates (dha.gate/1 adapted to ExternalGate): verdicts, validation, fail-closed errors.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <stdexcept>

#include "decide_test_support.hpp"
#include "dha/gates/external_gate.hpp"

namespace dha::testing {
namespace {

// A scripted external gate: answers with a fixed result and remembers the last request.
class ScriptedGate final : public gates::ExternalGate {
 public:
  explicit ScriptedGate(gates::ExternalGateResult result, bool throws = false)
      : result_(std::move(result)), throws_(throws) {}
  std::string_view name() const override { return "backup-window"; }
  gates::ExternalGateResult evaluate(std::string_view request) const override {
    last_request = std::string(request);
    ++calls;
    if (throws_) throw std::runtime_error("plugin crashed");
    return result_;
  }
  mutable std::string last_request;
  mutable int calls = 0;

 private:
  gates::ExternalGateResult result_;
  bool throws_;
};

gates::ExternalGateResult ok(const char* json) { return {true, json, ""}; }

struct Run {
  decide::Decision decision;
  std::shared_ptr<ScriptedGate> gate;
};

Run run_with(gates::ExternalGateResult result, const std::function<void(DecideCase&)>& setup = {},
             bool throws = false) {
  auto gate = std::make_shared<ScriptedGate>(std::move(result), throws);
  gates::GateChain chain = gates::GateChain::builtin();
  chain.add(std::make_shared<gates::PluginGate>(gate));
  DecideCase c;
  if (setup) setup(c);
  decide::DecideOptions options;
  options.chain = &chain;
  options.dha_namespace = "tenant-a";
  options.dha_name = "db";
  return {decide::decide(c.spec, c.obs, c.state, c.now, options), gate};
}

TEST(PluginGate, PassKeepsTheProposal) {
  const auto r = run_with(ok(R"({"verdict":"pass"})"));
  EXPECT_EQ(r.decision.kind, model::DecisionKind::Scale);
  EXPECT_EQ(r.decision.desired_replicas, 4);
  EXPECT_EQ(r.decision.trace.back().gate, "plugin:backup-window");
  EXPECT_EQ(r.decision.trace.back().reason, "Pass");
}

TEST(PluginGate, ClampTowardCurrentIsLimited) {
  const auto r = run_with(ok(R"({"verdict":"clamp","replicas":3,"reason":"BackupWindow","message":"backup running"})"));
  EXPECT_EQ(r.decision.kind, model::DecisionKind::NoChange);
  EXPECT_EQ(r.decision.reason, "BackupWindow");
  EXPECT_EQ(r.decision.message, "backup running");
  EXPECT_TRUE(r.decision.limited);
  EXPECT_EQ(r.decision.scaling_limited_condition.reason, "BackupWindow");
}

TEST(PluginGate, FreezeUsesThePluginReason) {
  const auto r = run_with(ok(R"({"verdict":"freeze","reason":"BackupWindow","message":"no scaling during backups"})"));
  EXPECT_EQ(r.decision.kind, model::DecisionKind::Freeze);
  EXPECT_EQ(r.decision.desired_replicas, 3);
  EXPECT_EQ(r.decision.able_to_scale_condition.reason, "BackupWindow");
  EXPECT_EQ(r.decision.message, "no scaling during backups");
  EXPECT_FALSE(r.decision.apply);
}

struct FailRow {
  const char* name;
  gates::ExternalGateResult result;
  bool throws;
  const char* message;
};

class PluginGateFailsClosed : public ::testing::TestWithParam<FailRow> {};

TEST_P(PluginGateFailsClosed, FreezesWithGateError) {
  const auto r = run_with(GetParam().result, {}, GetParam().throws);
  EXPECT_EQ(r.decision.kind, model::DecisionKind::Freeze);
  EXPECT_EQ(r.decision.reason, "GateError");
  EXPECT_EQ(r.decision.message, GetParam().message);
  EXPECT_FALSE(r.decision.apply);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PluginGateFailsClosed,
    ::testing::Values(
        FailRow{"error_status",
                {false, "", "quota service down"},
                false,
                "gate plugin:backup-window failed: quota service down; freezing (fail closed)"},
        FailRow{"exception", ok(""), true, "gate plugin:backup-window failed: plugin crashed; freezing (fail closed)"},
        FailRow{"not_json", ok("{verdict"), false,
                "gate plugin:backup-window failed: response is not a JSON object; freezing (fail closed)"},
        FailRow{"unknown_verdict", ok(R"({"verdict":"maybe"})"), false,
                "gate plugin:backup-window failed: unknown verdict \"maybe\"; freezing (fail closed)"},
        FailRow{"clamp_away_from_current", ok(R"({"verdict":"clamp","replicas":5,"reason":"More"})"), false,
                "gate plugin:backup-window failed: clamp to 5 moves away from currentReplicas 3; freezing (fail "
                "closed)"},
        FailRow{"clamp_without_replicas", ok(R"({"verdict":"clamp","reason":"X"})"), false,
                "gate plugin:backup-window failed: clamp without an integer replicas; freezing (fail closed)"},
        FailRow{"reason_not_a_condition_reason", ok(R"({"verdict":"freeze","reason":"no way!"})"), false,
                "gate plugin:backup-window failed: invalid reason \"no way!\"; freezing (fail closed)"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(PluginGate, RequestFollowsTheSdkContract) {
  const auto r = run_with(ok(R"({"verdict":"pass"})"));
  rapidjson::Document req;
  req.Parse(r.gate->last_request.c_str());
  ASSERT_FALSE(req.HasParseError());
  EXPECT_EQ(req["now"].GetInt64(), 10000);
  EXPECT_STREQ(req["dha"]["namespace"].GetString(), "tenant-a");
  EXPECT_STREQ(req["dha"]["name"].GetString(), "db");
  EXPECT_EQ(req["spec"]["behavior"]["scaleUp"]["stabilizationWindowSeconds"].GetInt(), 300);  // defaults applied
  EXPECT_EQ(req["observation"]["currentReplicas"].GetInt(), 3);
  EXPECT_TRUE(req["state"]["recommendations"].IsArray());
  EXPECT_STREQ(req["proposal"]["kind"].GetString(), "Scale");
  EXPECT_EQ(req["proposal"]["currentReplicas"].GetInt(), 3);
  EXPECT_EQ(req["proposal"]["replicas"].GetInt(), 4);
}

// A gate's text is data, not a C string: an embedded NUL must not cut the message short on its
// way into the decision document (the status writer and `decide` print that document).
TEST(PluginGate, MessageWithANulSurvivesIntoTheDecisionDocument) {
  const auto r = run_with(ok(R"({"verdict":"freeze","reason":"BackupWindow","message":"before\u0000after"})"));
  ASSERT_EQ(r.decision.message, std::string("before\0after", 12));
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = decide::decision_to_json(r.decision, doc.GetAllocator());
  EXPECT_EQ(std::string(doc["message"].GetString(), doc["message"].GetStringLength()), r.decision.message);
  const rapidjson::Value& conditions = doc["conditions"];
  EXPECT_EQ(conditions[0]["message"].GetStringLength(), 12u);
}

// Reasons are validated whole: a NUL must not hide a suffix from the CamelCase check.
TEST(PluginGate, ReasonWithANulIsRefused) {
  const auto r = run_with(ok(R"({"verdict":"freeze","reason":"Backup\u0000; rm -rf","message":"m"})"));
  EXPECT_EQ(r.decision.kind, model::DecisionKind::Freeze);
  EXPECT_EQ(r.decision.reason, "GateError");
}

TEST(PluginGate, NotAskedAboutAFreeze) {
  const auto r = run_with(ok(R"({"verdict":"pass"})"), [](DecideCase& c) { c.obs.metrics.clear(); });
  EXPECT_EQ(r.gate->calls, 0);
  EXPECT_EQ(r.decision.reason, "MetricUnavailable");
}

TEST(PluginGate, SeesARollbackAndMayHoldIt) {
  auto setup = [](DecideCase& c) {
    c.obs.available_replicas = 2;
    c.state.in_flight_since = c.now - 901;
    c.state.last_converged_replicas = 2;
  };
  const auto r = run_with(ok(R"({"verdict":"clamp","replicas":3,"reason":"BackupWindow","message":"hold"})"), setup);
  rapidjson::Document req;
  req.Parse(r.gate->last_request.c_str());
  EXPECT_STREQ(req["proposal"]["kind"].GetString(), "Rollback");
  EXPECT_EQ(r.decision.kind, model::DecisionKind::Freeze);
  EXPECT_EQ(r.decision.reason, "BackupWindow");
}

TEST(PluginGate, RunsAfterTheBuiltins) {
  const auto r = run_with(ok(R"({"verdict":"pass"})"), [](DecideCase& c) { c.load(900); });
  rapidjson::Document req;
  req.Parse(r.gate->last_request.c_str());
  EXPECT_EQ(req["proposal"]["replicas"].GetInt(), 4);  // already step-limited
  EXPECT_EQ(r.decision.trace.size(), 12u);
}

}  // namespace
}  // namespace dha::testing
