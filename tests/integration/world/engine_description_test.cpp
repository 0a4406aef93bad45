// Engine descriptions: what dha-world-sim reads to play an engine other than Postgres, and the
// exporter that renders a description's series. Pure: no servers, made-up times.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <string>

#include "dha/testing/world/engine_description.hpp"
#include "dha/testing/world/engine_exporter.hpp"
#include "dha/testing/world/world_simulator.hpp"

namespace dha::testing::world {
namespace {

using namespace std::chrono_literals;

const std::string kTemplateEngine = DHA_SOURCE_DIR "/sdk/template/dev/acmedb.engine.yaml";

// "metric{labels}" -> value, from exposition text.
std::map<std::string, double> parse_exposition(const std::string& text) {
  std::map<std::string, double> out;
  static const std::regex line(R"(^(\S+\{[^}]*\}) (\S+) \d+$)");
  size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::string l = text.substr(start, end - start);
    std::smatch m;
    EXPECT_TRUE(std::regex_match(l, m, line)) << l;
    if (!m.empty()) out[m[1]] = std::stod(m[2]);
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

TEST(EngineDescription, TheTemplatesAcmeDbDescriptionReads) {
  const auto e = EngineDescription::read_file(kTemplateEngine);
  EXPECT_EQ(e.kind, "AcmeDB");
  EXPECT_EQ(e.collection_path("tenant-a"), "/apis/db.example.com/v1/namespaces/tenant-a/acmedbs");
  EXPECT_EQ(e.collection_path(""), "/apis/db.example.com/v1/acmedbs");
  EXPECT_EQ(e.replicas_path, "spec.replicas");
  EXPECT_EQ(e.default_replicas, 3);
  EXPECT_EQ(fill_placeholders(e.pods, "tenant-a", "orders"), "orders");
  EXPECT_EQ(e.available_path, "status.availableReplicas");
  EXPECT_TRUE(e.ready_condition);
  ASSERT_TRUE(e.workload_monitor);
  EXPECT_EQ(fill_placeholders(e.workload_monitor->name, "tenant-a", "orders"), "acmedb-orders");
  EXPECT_EQ(e.workload_monitor->kind, "acmedb");
  ASSERT_EQ(e.series.size(), 3u);
  EXPECT_EQ(e.series[2].pods, PodSelection::kPrimary);
}

TEST(EngineDescription, StatusFieldsNameTheirPathAndWhatTheyHold) {
  const auto e = EngineDescription::parse(R"(
kind: KeyDB
group: db.example.com
version: v1
plural: keydbs
status:
  fields:
    topology.readyNodes: available
    nodes: instances
    healthy: ready
    phase: Running
    generation: 7
    version: "7"
series: [{metric: keydb_clients, value: readConnections}])",
                                          "keydb.yaml");
  ASSERT_EQ(e.status_fields.size(), 6u);
  EXPECT_EQ(e.status_fields[0].path, "status.topology.readyNodes");
  EXPECT_EQ(e.status_fields[0].source, StatusField::Source::kAvailable);
  EXPECT_EQ(e.status_fields[1].source, StatusField::Source::kInstances);
  EXPECT_EQ(e.status_fields[2].source, StatusField::Source::kReady);
  EXPECT_EQ(e.status_fields[3].source, StatusField::Source::kConstant);
  EXPECT_EQ(e.status_fields[3].constant, "Running");
  EXPECT_FALSE(e.status_fields[3].constant_is_number);
  EXPECT_TRUE(e.status_fields[4].constant_is_number);
  EXPECT_FALSE(e.status_fields[5].constant_is_number) << "a quoted number stays a string";
  try {
    EngineDescription::parse("{kind: K, group: g.io, version: v1, plural: ks, status: {fields: {'a..b': ready}}}",
                             "bad.yaml");
    ADD_FAILURE() << "a path with an empty step must be refused";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("status.fields.a..b"), std::string::npos) << error.what();
  }
}

TEST(EngineDescription, JsonIsAcceptedAndDefaultsAreFilled) {
  const auto e = EngineDescription::parse(
      R"({"kind": "KeyDB", "group": "kv.example.com", "version": "v2", "plural": "keydbs",
          "series": [{"metric": "keydb_clients", "value": "readConnections"}]})",
      "keydb.json");
  EXPECT_EQ(e.replicas_path, "spec.replicas");
  EXPECT_EQ(e.default_replicas, 1);
  EXPECT_EQ(e.pods, "keydb-${app}") << "the kind in lower case";
  EXPECT_FALSE(e.workload_monitor);
  EXPECT_FALSE(e.available_path);
  EXPECT_FALSE(e.ready_condition);
  EXPECT_EQ(e.series[0].pods, PodSelection::kAvailable);
}

TEST(EngineDescription, PlaceholdersAreFilledAndOthersLeftAlone) {
  EXPECT_EQ(fill_placeholders("${namespace}/${app}/${pod}/${role}", "ns", "db", "db-2", "replica"),
            "ns/db/db-2/replica");
  EXPECT_EQ(fill_placeholders("$app ${ap} ${", "ns", "db"), "$app ${ap} ${");
}

struct BadDescription {
  const char* name;
  const char* yaml;
  const char* message;
};

class EngineDescriptionRejects : public ::testing::TestWithParam<BadDescription> {};

TEST_P(EngineDescriptionRejects, WithTheSourceAndTheKey) {
  try {
    EngineDescription::parse(GetParam().yaml, "engine.yaml");
    FAIL() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("engine.yaml", 0), 0u) << e.what();
  }
}

#define DHA_ENGINE_HEAD "kind: X\ngroup: x.io\nversion: v1\nplural: xs\n"
#define DHA_ONE_SERIES "series: [{metric: x_up, value: 1}]\n"
INSTANTIATE_TEST_SUITE_P(
    Cases, EngineDescriptionRejects,
    ::testing::Values(
        BadDescription{"Empty", "", "empty engine description"}, BadDescription{"NotYaml", "kind: [", "not YAML"},
        BadDescription{"NotAMapping", "- a\n- b\n", "must be a mapping"},
        BadDescription{"NoKind", "group: x.io\nversion: v1\nplural: xs\n" DHA_ONE_SERIES, "kind: is required"},
        BadDescription{"UnknownKey", DHA_ENGINE_HEAD "replica: 3\n" DHA_ONE_SERIES, "replica: unknown key"},
        BadDescription{"SlashInPlural", "kind: X\ngroup: x.io\nversion: v1\nplural: x/s\n" DHA_ONE_SERIES,
                       "plural: \"x/s\" cannot be part of an API path"},
        BadDescription{"NegativeDefault", DHA_ENGINE_HEAD "replicas: {default: -1}\n" DHA_ONE_SERIES,
                       "replicas.default: must be >= 0"},
        BadDescription{"BadPath", DHA_ENGINE_HEAD "replicas: {path: spec.}\n" DHA_ONE_SERIES, "replicas.path"},
        BadDescription{"AvailableOutsideStatus", DHA_ENGINE_HEAD "status: {availablePath: spec.ready}\n" DHA_ONE_SERIES,
                       "status.availablePath: \"spec.ready\" must be a dotted path under status."},
        BadDescription{"PodPlaceholder", DHA_ENGINE_HEAD "pods: \"${pod}\"\n" DHA_ONE_SERIES,
                       "pods: unknown placeholder ${pod}"},
        BadDescription{"MonitorWithoutName",
                       DHA_ENGINE_HEAD "health: {workloadMonitor: {minReplicas: 1}}\n" DHA_ONE_SERIES,
                       "health.workloadMonitor.name: is required"},
        BadDescription{"NoSeries", DHA_ENGINE_HEAD, "series: is required"},
        BadDescription{"BadMetricName", DHA_ENGINE_HEAD "series: [{metric: 1x, value: 1}]\n",
                       "series[0].metric: \"1x\" is not a Prometheus metric name"},
        BadDescription{"BadLabelName", DHA_ENGINE_HEAD "series: [{metric: x, value: 1, labels: {a-b: c}}]\n",
                       "series[0].labels.a-b: is not a Prometheus label name"},
        BadDescription{"UnknownLabelPlaceholder",
                       DHA_ENGINE_HEAD "series: [{metric: x, value: 1, labels: {a: \"${cluster}\"}}]\n",
                       "series[0].labels.a: unknown placeholder ${cluster}"},
        BadDescription{"UnknownValue", DHA_ENGINE_HEAD "series: [{metric: x, value: qps}]\n",
                       "series[0].value: \"qps\" is neither a number nor one of readConnections"},
        BadDescription{"UnknownPods", DHA_ENGINE_HEAD "series: [{metric: x, value: 1, pods: leaders}]\n",
                       "series[0].pods: \"leaders\" is not one of all, available, primary, replicas"},
        BadDescription{"LoadOnProvisioningPods",
                       DHA_ENGINE_HEAD "series: [{metric: x, value: lagSeconds, pods: all}]\n",
                       "series[0].pods: \"all\" includes pods still provisioning"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(EngineDescription, TheBuiltInPostgresIsTheSimulatorsDefault) {
  const WorldOptions options;
  EXPECT_EQ(options.engine.collection_path("demo"), "/apis/apps.cozystack.io/v1alpha1/namespaces/demo/postgreses");
  EXPECT_EQ(options.engine.default_replicas, 2);
  ASSERT_TRUE(options.engine.workload_monitor);
  EXPECT_EQ(fill_placeholders(options.engine.workload_monitor->name, "demo", "db"), "postgres-db");
  EXPECT_EQ(EngineDescription::parse(EngineDescription::postgres_yaml(), "printed").series.size(),
            EngineDescription::postgres().series.size())
      << "what --print-postgres-engine prints reads back";
}

// ---- the exporter of a described engine ----------------------------------------------------

class AcmeDbExporter : public ::testing::Test {
 protected:
  const EngineDescription engine_ = EngineDescription::read_file(kTemplateEngine);
  const Clock::time_point t0_ = Clock::time_point{} + 1000s;
  SimulatedDatabase db_{fill_placeholders(engine_.pods, "tenant-a", "orders"), 3, t0_};
  EngineExporter exporter_{engine_, "tenant-a", "orders"};

  static std::string series(const std::string& metric, const std::string& pod, const std::string& role) {
    return metric + "{namespace=\"tenant-a\",cluster=\"orders\",pod=\"" + pod + "\",role=\"" + role + "\"}";
  }
};

TEST_F(AcmeDbExporter, LabelsAreTheAdaptersAndLoadGoesToAvailableReplicas) {
  db_.set_replicas(4, t0_, 10s);  // orders-4 provisions
  LoadPoint load;
  load.read_connections = 250;
  load.lag_seconds = 1.5;
  const auto s = parse_exposition(exporter_.scrape(db_.instances(t0_ + 1s), load, {}, 1, 7));
  EXPECT_EQ(s.at(series("acmedb_client_connections", "orders-1", "primary")), 0);
  EXPECT_EQ(s.at(series("acmedb_client_connections", "orders-2", "replica")), 125);
  EXPECT_EQ(s.at(series("acmedb_client_connections", "orders-3", "replica")), 125);
  EXPECT_EQ(s.count(series("acmedb_client_connections", "orders-4", "replica")), 0u) << "not up yet";
  EXPECT_EQ(s.at(series("acmedb_replica_delay_seconds", "orders-1", "primary")), 0);
  EXPECT_EQ(s.at(series("acmedb_replica_delay_seconds", "orders-3", "replica")), 1.5);
  EXPECT_EQ(s.count(series("acmedb_writes_total", "orders-2", "replica")), 0u) << "pods: primary";
  EXPECT_EQ(s.size(), 7u);

  const auto later = parse_exposition(exporter_.scrape(db_.instances(t0_ + 10s), load, {}, 1, 8));
  EXPECT_NEAR(later.at(series("acmedb_client_connections", "orders-4", "replica")), 250.0 / 3, 1e-6);
}

TEST_F(AcmeDbExporter, WritesCountUpOnThePrimaryAndRemovedPodsGetZeros) {
  LoadPoint load;
  load.read_connections = 100;
  load.write_bytes_per_second = 50;
  exporter_.scrape(db_.instances(t0_), load, {}, 0, 1);
  const auto s = parse_exposition(exporter_.scrape(db_.instances(t0_ + 4s), load, {}, 4, 2));
  EXPECT_DOUBLE_EQ(s.at(series("acmedb_writes_total", "orders-1", "primary")), 200);

  db_.set_replicas(2, t0_ + 5s, 10s);
  const auto removed = db_.take_removed_pods();
  ASSERT_EQ(removed, std::vector<std::string>{"orders-3"});
  const auto after = parse_exposition(exporter_.scrape(db_.instances(t0_ + 5s), load, removed, 1, 3));
  EXPECT_EQ(after.at(series("acmedb_client_connections", "orders-3", "replica")), 0);
  EXPECT_EQ(after.at(series("acmedb_replica_delay_seconds", "orders-3", "replica")), 0);
  EXPECT_EQ(after.at(series("acmedb_client_connections", "orders-2", "replica")), 100);
  EXPECT_DOUBLE_EQ(after.at(series("acmedb_writes_total", "orders-1", "primary")), 250);
}

}  // namespace
}  // namespace dha::testing::world
