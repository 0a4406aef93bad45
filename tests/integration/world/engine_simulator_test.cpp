// The world simulator playing a described engine (the SDK template's AcmeDB) against a real
// embedded API server and a real VictoriaMetrics: the object's status and its WorkloadMonitor
// follow the replicas as they become available, and the series answer the template adapter's own
// queries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <thread>

#include "acmedb_adapter.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "dha/testing/world/world_simulator.hpp"
#include "world_servers.hpp"

namespace dha::testing::world {
namespace {

using namespace std::chrono_literals;

class AcmeDbWorld : public WorldServers<AcmeDbWorld> {
 protected:
  static void SetUpTestSuite() {
    start_servers({DHA_SOURCE_DIR "/sdk/testing/crds", DHA_SOURCE_DIR "/sdk/template/crds"});
  }

  std::string acmedb_path(const std::string& name = "") const {
    return engine_.collection_path(ns_) + (name.empty() ? "" : "/" + name);
  }
  void create_acmedb(const std::string& name, const std::string& spec) {
    const auto r =
        kube_->create(acmedb_path(), R"({"apiVersion":"db.example.com/v1","kind":"AcmeDB","metadata":{"name":")" +
                                         name + R"(","namespace":")" + ns_ + R"("},"spec":)" + spec + "}");
    ASSERT_EQ(r.status, 201) << r.body;
  }
  void set_replicas(int replicas) {
    const auto r =
        kube_->merge_patch(acmedb_path("orders"), R"({"spec":{"replicas":)" + std::to_string(replicas) + "}}");
    ASSERT_EQ(r.status, 200) << r.body;
  }

  // The value at a JSON pointer ("/status/availableReplicas") of an object, as text ("" if absent).
  std::string field(const std::string& path, const char* pointer) {
    const auto r = kube_->get(path);
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    if (d.HasParseError()) return "unparsable: " + r.body;
    const rapidjson::Value* v = rapidjson::Pointer(pointer).Get(d);
    if (v == nullptr) return "";
    if (v->IsString()) return v->GetString();
    if (v->IsBool()) return v->GetBool() ? "true" : "false";
    if (v->IsInt()) return std::to_string(v->GetInt());
    return "?";
  }
  std::string available() { return field(acmedb_path("orders"), "/status/availableReplicas"); }
  std::string ready() { return field(acmedb_path("orders"), "/status/conditions/0/status"); }
  // The WorkloadMonitor the adapter reads health from: "available/observed operational".
  std::string monitor() {
    const std::string path = "/apis/cozystack.io/v1alpha1/namespaces/" + ns_ + "/workloadmonitors/acmedb-orders";
    return field(path, "/status/availableReplicas") + "/" + field(path, "/status/observedReplicas") + " " +
           field(path, "/status/operational");
  }

  WorldOptions options() const {
    WorldOptions o;
    o.vm_url = vm_->url();
    o.namespace_name = ns_;
    o.provision = 5s;
    o.scrape_interval = 500ms;
    o.engine = engine_;
    return o;
  }
  static LoadCurve constant_curve(const std::string& row) {
    return LoadCurve::parse_csv("time,ReadConnections,lagSeconds,writeRate\n0," + row + "\n", "test");
  }

  // The template adapter's query of `kind` for tenant/orders, rendered as the host renders it.
  std::string adapter_query(const std::string& kind) const {
    const sdk::json::Document config = sdk::json::parse(R"({"minQuorum": 1})", "config");
    const sdk::Queries q =
        acme::AcmeDbAdapter(sdk::Host(), config)
            .queries({ns_, "orders", "acmedb-orders", "db.example.com", "AcmeDB", {"ReadConnections"}});
    const std::string& tmpl = kind == "lag" ? q.lag_query : kind == "writes" ? q.write_activity : q.driver.at(kind);
    return fill_query_placeholders(tmpl, ns_, "orders", "acmedb-orders");
  }
  const EngineDescription engine_ = EngineDescription::read_file(DHA_SOURCE_DIR "/sdk/template/dev/acmedb.engine.yaml");
};

TEST_F(AcmeDbWorld, StatusAndWorkloadMonitorFollowTheReplicasAtTheDescribedPaths) {
  create_acmedb("orders", R"({"replicas": 3, "quorum": 1})");
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("250,0.5,100"), options(), log_);
  const auto t0 = Clock::now();
  world.step(t0);
  EXPECT_EQ(available(), "3") << log_.str();
  EXPECT_EQ(ready(), "True");
  EXPECT_EQ(monitor(), "3/3 true");

  set_replicas(4);
  world.step(t0 + 1s);
  EXPECT_EQ(available(), "3") << "the new replica is provisioning";
  EXPECT_EQ(ready(), "False");
  EXPECT_EQ(monitor(), "3/4 true");
  world.step(t0 + 6s);
  EXPECT_EQ(available(), "4");
  EXPECT_EQ(ready(), "True");
  EXPECT_EQ(monitor(), "4/4 true");
  EXPECT_NE(log_.str().find(ns_ + "/orders: AcmeDB with 3 instances"), std::string::npos) << log_.str();
  EXPECT_NE(log_.str().find(ns_ + "/orders: spec.replicas 3 -> 4"), std::string::npos) << log_.str();
}

// Any status field the description names is kept in step: counts, a readiness flag, a constant.
TEST_F(AcmeDbWorld, StatusFieldsTheDescriptionNamesAreWritten) {
  create_acmedb("orders", R"({"replicas": 3})");
  WorldOptions o = options();
  o.engine.status_fields = EngineDescription::parse(R"(
kind: AcmeDB
group: db.example.com
version: v1
plural: acmedbs
status:
  fields:
    topology.readyNodes: available
    topology.nodes: instances
    allReady: ready
    phase: Running
series: [{metric: acmedb_client_connections, value: readConnections}])",
                                                    "fields.yaml")
                               .status_fields;
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("250,0.5,100"), o, log_);
  const auto t0 = Clock::now();
  world.step(t0);
  const std::string path = acmedb_path("orders");
  EXPECT_EQ(field(path, "/status/topology/readyNodes"), "3") << log_.str();
  EXPECT_EQ(field(path, "/status/topology/nodes"), "3");
  EXPECT_EQ(field(path, "/status/allReady"), "true");
  EXPECT_EQ(field(path, "/status/phase"), "Running");
  EXPECT_EQ(available(), "3") << "availablePath is written next to the fields";

  set_replicas(4);
  world.step(t0 + 1s);
  EXPECT_EQ(field(path, "/status/topology/readyNodes"), "3") << "the new node is provisioning";
  EXPECT_EQ(field(path, "/status/topology/nodes"), "4");
  EXPECT_EQ(field(path, "/status/allReady"), "false");
  world.step(t0 + 6s);
  EXPECT_EQ(field(path, "/status/topology/readyNodes"), "4");
  EXPECT_EQ(field(path, "/status/allReady"), "true");
}

TEST_F(AcmeDbWorld, AnObjectWithoutReplicasGetsTheDescribedDefault) {
  create_acmedb("orders", "{}");
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("250,0.5,100"), options(), log_);
  world.step(Clock::now());
  ASSERT_EQ(world.apps(Clock::now()).size(), 1u);
  EXPECT_EQ(world.apps(Clock::now())[0].replicas, 3);
}

TEST_F(AcmeDbWorld, SeriesAnswerTheTemplateAdaptersQueries) {
  create_acmedb("orders", R"({"replicas": 3})");
  create_acmedb("other", R"({"replicas": 2})");  // same namespace: must not leak into orders' numbers
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("250,0.5,100"), options(), log_);
  world.step(Clock::now());
  std::this_thread::sleep_for(2s);  // two samples of the write counter, two seconds apart
  world.step(Clock::now());
  EXPECT_NEAR(eventually(adapter_query("ReadConnections"), 250), 250, 1e-6);
  EXPECT_NEAR(eventually(adapter_query("lag"), 0.5), 0.5, 1e-6);
  EXPECT_NEAR(eventually(adapter_query("writes"), 100, 10), 100, 10);
}

}  // namespace
}  // namespace dha::testing::world
