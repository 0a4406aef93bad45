#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "dha/sdk/sdk.hpp"

namespace {

using dha::sdk::Error;
using dha::sdk::StringSink;
namespace json = dha::sdk::json;

// An engine whose behaviour is steered by the target's name, to reach every barrier path.
class SteeredEngine : public dha::sdk::EngineAdapter {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "steered-engine",
      .name = "Steered",
      .version = "1.0.0",
      .vendor = "tests",
      .description = "test engine",
      .config_schema = R"({"keys": [{"name": "release", "type": "string", "default": "x"}]})"};

  SteeredEngine(const dha::sdk::Host& host, const json::Value& config)
      : host_(host), release_(json::string_or(config, "release", "x", "config")) {
    host_.info("created");
  }

  std::vector<dha::sdk::TargetKind> targets() const override {
    return {{"example.com", "v1", "Thing", "things", "builtin.scale"}};
  }
  dha::sdk::Topology topology(const dha::sdk::ObjectView& target) const override {
    const std::string_view name = target.name();
    if (name == "throw-error") throw Error(DHA_UNAVAILABLE, "typed failure");
    if (name == "throw-std") throw std::runtime_error("plain failure");
    if (name == "throw-int") throw 42;
    dha::sdk::Topology t;
    t.current_replicas = dha::sdk::values::read_replicas(target.json(), "spec.replicas");
    t.release_name = release_ + "-" + std::string(name);
    t.health = dha::sdk::HealthSource::workload_monitor(t.release_name);
    return t;
  }
  dha::sdk::Queries queries(const dha::sdk::QueryRequest& r) const override {
    dha::sdk::Queries q;
    for (const auto& m : r.metric_types) q.driver[m] = "sum(" + m + "{namespace=\"${namespace}\"})";
    return q;
  }

 private:
  dha::sdk::Host host_;
  std::string release_;
};

class Everything : public dha::sdk::MetricSource, public dha::sdk::Gate, public dha::sdk::Actuator {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "everything.v2", .name = "Everything", .version = "0.1.0", .vendor = "tests", .description = "d"};

  Everything(const dha::sdk::Host&, const json::Value& config) {
    if (dha::sdk::values::read_bool(config, "refuse", false)) throw Error(DHA_INVALID_ARGUMENT, "refused config");
  }
  dha::sdk::Samples instant_query(const dha::sdk::InstantQuery& q) const override {
    if (q.query == "empty") return {};
    if (q.query == "nan") return {{{{{"pod", "db-1"}}, 1}, {{{"pod", "db-2"}}, std::nan("")}}};
    if (q.query == "inf") return {{{{{"pod", "db-1"}}, INFINITY}}};
    return {{{{{"pod", "db-1"}}, 7.5}}};
  }
  dha::sdk::Verdict evaluate(const dha::sdk::GateRequest& r) const override {
    return r.proposal.replicas > 5 ? dha::sdk::Verdict::clamp(5, "Cap", "at most 5") : dha::sdk::Verdict::pass();
  }
  dha::sdk::ActuatorPlan plan(const dha::sdk::ActuatorRequest& r) const override {
    dha::sdk::ActuatorPlan p;
    p.requests.emplace_back("scale", "merge", R"({"spec": {"replicas": )" + std::to_string(r.desired_replicas) + "}}");
    return p;
  }
};

DHA_DEFINE_PLUGIN_ENTRY(test_plugins_entry, SteeredEngine, Everything)

struct LoggedLine {
  dha_log_level level;
  std::string text;
};

class SdkExport : public ::testing::Test {
 protected:
  void SetUp() override {
    host_.struct_size = sizeof(dha_host);
    host_.abi_major = DHA_ABI_VERSION_MAJOR;
    host_.abi_minor = DHA_ABI_VERSION_MINOR;
    host_.name = "test-host";
    host_.version = "0";
    host_.ctx = &log_;
    host_.log = [](void* ctx, dha_log_level level, dha_str message) {
      static_cast<std::vector<LoggedLine>*>(ctx)->push_back({level, std::string(message.data, message.size)});
    };
  }
  void TearDown() override {
    for (const dha_plugin* p : made_) p->destroy(p);
  }

  const dha_plugin* create(const std::string& id, const std::string& config, dha_status want = DHA_OK) {
    const dha_plugin* out = reinterpret_cast<const dha_plugin*>(0x1);
    error_.clear();
    const dha_status s =
        entry_->create(&host_, dha::sdk::to_dha_str(id), dha::sdk::to_dha_str(config), &out, error_.sink());
    EXPECT_EQ(s, want) << error_.str();
    if (s == DHA_OK) {
      made_.push_back(out);
    } else {
      EXPECT_EQ(out, nullptr) << "a failed create must leave *out NULL";
    }
    return s == DHA_OK ? out : nullptr;
  }

  const dha_plugin_entry* entry_ = test_plugins_entry();
  dha_host host_{};
  std::vector<LoggedLine> log_;
  std::vector<const dha_plugin*> made_;
  StringSink out_;
  StringSink error_;
};

TEST_F(SdkExport, EntryCarriesTheAbiVersionAndDescriptors) {
  EXPECT_EQ(entry_->struct_size, sizeof(dha_plugin_entry));
  EXPECT_EQ(entry_->abi_major, static_cast<uint32_t>(DHA_ABI_VERSION_MAJOR));
  EXPECT_EQ(entry_->abi_minor, static_cast<uint32_t>(DHA_ABI_VERSION_MINOR));
  ASSERT_EQ(entry_->plugin_count(), 2u);
  const dha_plugin_descriptor* d0 = entry_->plugin_descriptor(0);
  const dha_plugin_descriptor* d1 = entry_->plugin_descriptor(1);
  ASSERT_NE(d0, nullptr);
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(entry_->plugin_descriptor(2), nullptr);
  EXPECT_STREQ(d0->id, "steered-engine");
  EXPECT_STREQ(d0->capabilities[0], DHA_EXT_ENGINE);
  EXPECT_EQ(d0->capabilities[1], nullptr);
  EXPECT_NE(std::strstr(d0->config_schema, "release"), nullptr);
  EXPECT_STREQ(d1->id, "everything.v2");
  EXPECT_STREQ(d1->capabilities[0], DHA_EXT_METRICS);
  EXPECT_STREQ(d1->capabilities[1], DHA_EXT_GATE);
  EXPECT_STREQ(d1->capabilities[2], DHA_EXT_ACTUATOR);
  EXPECT_EQ(d1->capabilities[3], nullptr);
  EXPECT_EQ(d1->config_schema, nullptr);
}

TEST_F(SdkExport, ExtensionsFollowTheBaseClasses) {
  const dha_plugin* engine = create("steered-engine", "{}");
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->descriptor, entry_->plugin_descriptor(0));
  EXPECT_NE(engine->get_extension(engine, DHA_EXT_ENGINE), nullptr);
  EXPECT_EQ(engine->get_extension(engine, DHA_EXT_METRICS), nullptr);
  EXPECT_EQ(engine->get_extension(engine, "dha.engine/2"), nullptr);
  EXPECT_EQ(engine->get_extension(engine, nullptr), nullptr);
  const dha_plugin* all = create("everything.v2", "");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->get_extension(all, DHA_EXT_ENGINE), nullptr);
  EXPECT_NE(all->get_extension(all, DHA_EXT_METRICS), nullptr);
  EXPECT_NE(all->get_extension(all, DHA_EXT_GATE), nullptr);
  EXPECT_NE(all->get_extension(all, DHA_EXT_ACTUATOR), nullptr);
}

TEST_F(SdkExport, CreateRefusesUnknownIdsAndBadConfig) {
  create("nope", "{}", DHA_NOT_FOUND);
  EXPECT_EQ(error_.str(), "no plugin \"nope\" in this library (it holds: steered-engine, everything.v2)");
  create("steered-engine", "{not json", DHA_INVALID_ARGUMENT);
  EXPECT_NE(error_.str().find("configuration of plugin \"steered-engine\": malformed JSON"), std::string::npos)
      << error_.str();
  create("steered-engine", "[]", DHA_INVALID_ARGUMENT);
  create("everything.v2", R"({"refuse": true})", DHA_INVALID_ARGUMENT);
  EXPECT_EQ(error_.str(), "refused config");
  EXPECT_EQ(entry_->create(&host_, dha::sdk::to_dha_str("steered-engine"), dha::sdk::to_dha_str("{}"), nullptr,
                           error_.sink()),
            DHA_INVALID_ARGUMENT);
}

TEST_F(SdkExport, ConfigReachesTheConstructorAndTheHostLogWorks) {
  const dha_plugin* p = create("steered-engine", R"({"release": "pg"})");
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_EQ(log_[0].level, DHA_LOG_INFO);
  EXPECT_EQ(log_[0].text, "created");
  const auto* engine = static_cast<const dha_engine*>(p->get_extension(p, DHA_EXT_ENGINE));
  const std::string target = R"({"metadata": {"name": "db"}, "spec": {"replicas": 3}})";
  ASSERT_EQ(engine->topology(p, dha::sdk::to_dha_str(target), out_.sink(), error_.sink()), DHA_OK) << error_.str();
  const json::Document doc = json::parse(out_.str(), "out");
  const dha::sdk::Topology t = dha::sdk::Topology::from_json(doc);
  EXPECT_EQ(t.release_name, "pg-db");
  EXPECT_EQ(t.current_replicas, 3);
  EXPECT_EQ(t.health.name, "pg-db");
}

TEST_F(SdkExport, BarrierTurnsEveryExceptionIntoAStatus) {
  const dha_plugin* p = create("steered-engine", "{}");
  ASSERT_NE(p, nullptr);
  const auto* engine = static_cast<const dha_engine*>(p->get_extension(p, DHA_EXT_ENGINE));
  const struct {
    const char* input;
    dha_status want;
    const char* message_part;
  } cases[] = {
      {R"({"metadata": {"name": "throw-error"}})", DHA_UNAVAILABLE, "typed failure"},
      {R"({"metadata": {"name": "throw-std"}})", DHA_INTERNAL, "plain failure"},
      {R"({"metadata": {"name": "throw-int"}})", DHA_INTERNAL, "unknown exception"},
      {R"({"metadata": )", DHA_INVALID_ARGUMENT, "topology input: malformed JSON"},
      {R"("a string")", DHA_INVALID_ARGUMENT, "topology input: expected a JSON object"},
      {"", DHA_INVALID_ARGUMENT, "topology input: malformed JSON"},
  };
  for (const auto& c : cases) {
    out_.clear();
    error_.clear();
    EXPECT_EQ(engine->topology(p, dha::sdk::to_dha_str(c.input), out_.sink(), error_.sink()), c.want) << c.input;
    EXPECT_NE(error_.str().find(c.message_part), std::string::npos) << c.input << " -> " << error_.str();
    EXPECT_TRUE(out_.str().empty()) << "nothing is written to `out` on failure";
  }
  // A caller that passes no error sink still gets the status.
  EXPECT_EQ(engine->topology(p, dha::sdk::to_dha_str("{"), out_.sink(), dha_sink{nullptr, nullptr}),
            DHA_INVALID_ARGUMENT);
}

TEST_F(SdkExport, EngineQueriesTargetsAndDefaultHealth) {
  const dha_plugin* p = create("steered-engine", "{}");
  ASSERT_NE(p, nullptr);
  const auto* engine = static_cast<const dha_engine*>(p->get_extension(p, DHA_EXT_ENGINE));
  ASSERT_EQ(engine->targets(p, out_.sink(), error_.sink()), DHA_OK);
  EXPECT_EQ(
      out_.str(),
      R"([{"apiGroup":"example.com","version":"v1","kind":"Thing","plural":"things","actuator":"builtin.scale"}])");
  out_.clear();
  const std::string req = R"({"namespace": "a", "name": "db", "metricTypes": ["ReadConnections"]})";
  ASSERT_EQ(engine->queries(p, dha::sdk::to_dha_str(req), out_.sink(), error_.sink()), DHA_OK);
  EXPECT_NE(out_.str().find(R"x("ReadConnections":"sum(ReadConnections{namespace=\"${namespace}\"})")x"),
            std::string::npos)
      << out_.str();
  out_.clear();
  EXPECT_EQ(engine->queries(p, dha::sdk::to_dha_str(R"({"name": "db"})"), out_.sink(), error_.sink()),
            DHA_INVALID_ARGUMENT);
  const std::string health = R"({"target": {}, "object": {"status": {"operational": true, "availableReplicas": 2}}})";
  ASSERT_EQ(engine->health(p, dha::sdk::to_dha_str(health), out_.sink(), error_.sink()), DHA_OK);
  EXPECT_EQ(out_.str(), R"({"operational":true,"availableReplicas":2})");
  out_.clear();
  EXPECT_EQ(engine->health(p, dha::sdk::to_dha_str(R"({"target": {}, "object": {}})"), out_.sink(), error_.sink()),
            DHA_FAILED_PRECONDITION);
}

TEST_F(SdkExport, MetricsContractIsEnforcedOnThePluginsAnswer) {
  const dha_plugin* p = create("everything.v2", "{}");
  ASSERT_NE(p, nullptr);
  const auto* metrics = static_cast<const dha_metrics*>(p->get_extension(p, DHA_EXT_METRICS));
  const struct {
    const char* query;
    dha_status want;
  } cases[] = {{"ok", DHA_OK}, {"empty", DHA_NOT_FOUND}, {"nan", DHA_OUT_OF_RANGE}, {"inf", DHA_OUT_OF_RANGE}};
  for (const auto& c : cases) {
    out_.clear();
    error_.clear();
    const std::string in = std::string(R"({"query": ")") + c.query + R"(", "namespace": "a"})";
    EXPECT_EQ(metrics->instant_query(p, dha::sdk::to_dha_str(in), out_.sink(), error_.sink()), c.want) << c.query;
  }
  EXPECT_NE(error_.str().find("pod=\"db-1\""), std::string::npos) << error_.str();
  out_.clear();
  ASSERT_EQ(metrics->instant_query(p, dha::sdk::to_dha_str(R"({"query": "ok"})"), out_.sink(), error_.sink()), DHA_OK);
  EXPECT_EQ(out_.str(), R"({"samples":[{"labels":{"pod":"db-1"},"value":7.5}]})");
}

TEST_F(SdkExport, GateAndActuatorTrampolines) {
  const dha_plugin* p = create("everything.v2", "{}");
  ASSERT_NE(p, nullptr);
  const auto* gate = static_cast<const dha_gate*>(p->get_extension(p, DHA_EXT_GATE));
  const std::string in = R"({"now": 1, "dha": {"namespace": "a", "name": "b"},
                             "proposal": {"kind": "Scale", "currentReplicas": 3, "replicas": 9}})";
  ASSERT_EQ(gate->evaluate(p, dha::sdk::to_dha_str(in), out_.sink(), error_.sink()), DHA_OK) << error_.str();
  EXPECT_EQ(out_.str(), R"({"verdict":"clamp","replicas":5,"reason":"Cap","message":"at most 5"})");
  out_.clear();
  const auto* actuator = static_cast<const dha_actuator*>(p->get_extension(p, DHA_EXT_ACTUATOR));
  const std::string plan_in = R"({"action": "scale", "dha": {"namespace": "a", "name": "b"}, "target": {},
                                  "currentReplicas": 3, "desiredReplicas": 4})";
  ASSERT_EQ(actuator->plan(p, dha::sdk::to_dha_str(plan_in), out_.sink(), error_.sink()), DHA_OK) << error_.str();
  EXPECT_EQ(out_.str(), R"({"requests":[{"subresource":"scale","patchType":"merge","body":{"spec":{"replicas":4}}}]})");
}

TEST_F(SdkExport, HostWithoutLogOrTooShortIsSilentNotACrash) {
  host_.log = nullptr;
  EXPECT_NE(create("steered-engine", "{}"), nullptr);
  host_.struct_size = 8;
  EXPECT_NE(create("steered-engine", "{}"), nullptr);
  const dha_plugin* no_host = nullptr;
  EXPECT_EQ(entry_->create(nullptr, dha::sdk::to_dha_str("steered-engine"), dha::sdk::to_dha_str("{}"), &no_host,
                           error_.sink()),
            DHA_OK);
  made_.push_back(no_host);
  EXPECT_TRUE(log_.empty());
}

}  // namespace
