// The world simulator against a real embedded API server and a real VictoriaMetrics: replicas
// become available after the provisioning delay, the WorkloadMonitor follows, and the series it
// pushes answer the Postgres plugin's own queries with the load of the curve.
#include <gtest/gtest.h>
#include <unistd.h>

#include <rapidjson/document.h>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "dha/testing/api_server.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "dha/testing/world/world_simulator.hpp"
#include "postgres_adapter.hpp"
#include "world_servers.hpp"

namespace dha::testing::world {
namespace {

using namespace std::chrono_literals;

class WorldOnRealServers : public WorldServers<WorldOnRealServers> {
 protected:
  static void SetUpTestSuite() { start_servers({DHA_SOURCE_DIR "/sdk/testing/crds"}); }

  std::string apps_path(const std::string& name = "") const {
    return "/apis/apps.cozystack.io/v1alpha1/namespaces/" + ns_ + "/postgreses" + (name.empty() ? "" : "/" + name);
  }

  void create_postgres(const std::string& name, int replicas) {
    const auto r = kube_->create(apps_path(), R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres",)"
                                              R"("metadata":{"name":")" +
                                                  name + R"(","namespace":")" + ns_ + R"("},"spec":{"replicas":)" +
                                                  std::to_string(replicas) + "}}");
    ASSERT_EQ(r.status, 201) << r.body;
  }

  void set_replicas(const std::string& name, int replicas) {
    const auto r = kube_->merge_patch(apps_path(name), R"({"spec":{"replicas":)" + std::to_string(replicas) + "}}");
    ASSERT_EQ(r.status, 200) << r.body;
  }

  struct Monitor {
    int spec_replicas = -1, available = -1, observed = -1;
    bool operational = false;
    bool operator==(const Monitor&) const = default;
  };
  friend std::ostream& operator<<(std::ostream& os, const Monitor& m) {
    return os << "{spec.replicas " << m.spec_replicas << ", available " << m.available << ", observed " << m.observed
              << ", operational " << m.operational << "}";
  }

  Monitor monitor(const std::string& app) {
    const auto r = kube_->get("/apis/cozystack.io/v1alpha1/namespaces/" + ns_ + "/workloadmonitors/postgres-" + app);
    Monitor m;
    EXPECT_EQ(r.status, 200) << r.body;
    if (r.status != 200) return m;
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    if (d.HasParseError() || !d.IsObject()) return m;
    if (d.HasMember("spec") && d["spec"].HasMember("replicas")) m.spec_replicas = d["spec"]["replicas"].GetInt();
    if (d.HasMember("status")) {
      const auto& s = d["status"];
      if (s.HasMember("availableReplicas")) m.available = s["availableReplicas"].GetInt();
      if (s.HasMember("observedReplicas")) m.observed = s["observedReplicas"].GetInt();
      if (s.HasMember("operational")) m.operational = s["operational"].GetBool();
    }
    return m;
  }

  // status.conditions[type=Ready].status of the application ("" when absent).
  std::string ready_condition(const std::string& app) {
    const auto r = kube_->get(apps_path(app));
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("status") || !d["status"].IsObject() ||
        !d["status"].HasMember("conditions") || !d["status"]["conditions"].IsArray())
      return "";
    for (const auto& c : d["status"]["conditions"].GetArray())
      if (c.IsObject() && c.HasMember("type") && std::string(c["type"].GetString()) == "Ready")
        return c["status"].GetString();
    return "";
  }

  WorldOptions options(std::chrono::milliseconds provision) const {
    WorldOptions o;
    o.vm_url = vm_->url();
    o.namespace_name = ns_;
    o.provision = provision;
    o.scrape_interval = 500ms;
    return o;
  }

  static LoadCurve constant_curve(const std::string& row) {
    return LoadCurve::parse_csv("time,ReadConnections,ReadCPUUtilization,lagSeconds,writeRate\n0," + row + "\n",
                                "test");
  }

  // The Postgres plugin's query for `kind` ("ReadConnections", "lag", "writes", "ReadCPUUtilization")
  // with this test's namespace filled in, exactly as the operator would send it.
  std::string plugin_query(const std::string& kind, const std::string& app = "db") const {
    const sdk::json::Document config = sdk::json::parse("{}", "config");
    const sdk::Queries q = plugins::PostgresAdapter(sdk::Host(), config)
                               .queries({ns_,
                                         app,
                                         "postgres-" + app,
                                         "apps.cozystack.io",
                                         "Postgres",
                                         {"ReadConnections", "ReadCPUUtilization"}});
    const std::string& tmpl = kind == "lag" ? q.lag_query : kind == "writes" ? q.write_activity : q.driver.at(kind);
    return fill_query_placeholders(tmpl, ns_, app, "postgres-" + app);
  }

  std::map<std::string, double> active_backends_by_pod() {
    std::map<std::string, double> out;
    for (const auto& s : vm_->query_vector("cnpg_backends_total{namespace=\"" + ns_ + "\",state=\"active\"}"))
      out[s.labels.at("pod")] = s.value;
    return out;
  }

  // Polls until the active backends per pod are exactly `expected`.
  void eventually_pods(const std::map<std::string, double>& expected) {
    std::map<std::string, double> last;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
      last = active_backends_by_pod();
      if (last == expected) return;
      std::this_thread::sleep_for(100ms);
    }
    std::string seen;
    for (const auto& [pod, v] : last) seen += pod + "=" + std::to_string(v) + " ";
    ADD_FAILURE() << "active backends by pod: " << seen;
  }
};

TEST_F(WorldOnRealServers, WorkloadMonitorFollowsReplicasAsTheyBecomeAvailable) {
  create_postgres("db", 2);
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("100,,,"), options(5s), log_);
  const auto t0 = Clock::now();
  world.step(t0);
  EXPECT_EQ(monitor("db"), (Monitor{2, 2, 2, true})) << log_.str();
  EXPECT_EQ(ready_condition("db"), "True");

  set_replicas("db", 4);
  world.step(t0 + 1s);
  EXPECT_EQ(monitor("db"), (Monitor{4, 2, 4, true})) << "new replicas are provisioning";
  EXPECT_EQ(ready_condition("db"), "False");
  world.step(t0 + 6s - 1ms);
  EXPECT_EQ(monitor("db"), (Monitor{4, 2, 4, true})) << "not before the delay";
  world.step(t0 + 6s);
  EXPECT_EQ(monitor("db"), (Monitor{4, 4, 4, true})) << log_.str();
  EXPECT_EQ(ready_condition("db"), "True");

  set_replicas("db", 3);
  world.step(t0 + 7s);
  EXPECT_EQ(monitor("db"), (Monitor{3, 3, 3, true})) << "a removed replica goes at once";

  set_replicas("db", 0);
  world.step(t0 + 8s);
  EXPECT_EQ(monitor("db"), (Monitor{0, 0, 0, false})) << "nothing available is not operational";
  EXPECT_NE(log_.str().find("spec.replicas 2 -> 4"), std::string::npos) << log_.str();
}

TEST_F(WorldOnRealServers, WorkloadMonitorIsPutBackWhenEditedByHand) {
  create_postgres("db", 3);
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("100,,,"), options(5s), log_);
  const auto t0 = Clock::now();
  world.step(t0);
  const std::string path = "/apis/cozystack.io/v1alpha1/namespaces/" + ns_ + "/workloadmonitors/postgres-db/status";
  ASSERT_EQ(kube_->merge_patch(path, R"({"status":{"availableReplicas":0,"operational":false}})").status, 200);
  world.step(t0 + 1s);
  EXPECT_EQ(monitor("db"), (Monitor{3, 0, 3, false})) << "within the resync period nothing is re-read";
  world.step(t0 + 7s);
  EXPECT_EQ(monitor("db"), (Monitor{3, 3, 3, true}));
}

TEST_F(WorldOnRealServers, CurveClockStartsWithTheFirstApplicationAndRunsScaled) {
  auto o = options(5s);
  o.time_scale = 4;
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("100,,,"), o, log_);
  const auto t0 = Clock::now();
  world.step(t0);
  EXPECT_EQ(world.curve_seconds(t0 + 10s), 0) << "no application yet";
  create_postgres("db", 2);
  world.step(t0 + 2s);
  EXPECT_DOUBLE_EQ(world.curve_seconds(t0 + 5s), 12);
  ASSERT_EQ(world.apps(t0 + 5s).size(), 1u);
  EXPECT_EQ(world.apps(t0 + 5s)[0].name, "db");
}

TEST_F(WorldOnRealServers, SeriesAnswerThePostgresPluginQueries) {
  create_postgres("db", 3);
  create_postgres("other", 2);  // same namespace, must not leak into db's numbers
  // 240 connections, 600 millicores, 1.5 s lag, 500 bytes/s of writes, over the read replicas.
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("240,600,1.5,500"), options(1h),
                       log_);
  world.step(Clock::now());
  std::this_thread::sleep_for(2s);  // two samples of every counter, two seconds apart
  world.step(Clock::now());

  EXPECT_NEAR(eventually(plugin_query("ReadConnections"), 240), 240, 1e-6);
  EXPECT_NEAR(eventually(plugin_query("ReadConnections", "other"), 240), 240, 1e-6);
  EXPECT_NEAR(eventually(plugin_query("lag"), 1.5), 1.5, 1e-6);
  EXPECT_NEAR(eventually(plugin_query("writes"), 500, 50), 500, 50);
  EXPECT_NEAR(eventually(plugin_query("ReadCPUUtilization"), 600, 60), 600, 60);
  const auto by_pod = active_backends_by_pod();
  EXPECT_EQ(by_pod.at("postgres-db-1"), 0) << "the primary serves no reads while replicas do";
  EXPECT_EQ(by_pod.at("postgres-db-2"), 120);
  EXPECT_EQ(by_pod.at("postgres-db-3"), 120);
}

TEST_F(WorldOnRealServers, LoadMovesOnlyToAvailableReplicasAndLeavesRemovedOnes) {
  create_postgres("db", 3);
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("240,,,"), options(1h), log_);
  world.step(Clock::now());
  set_replicas("db", 4);  // postgres-db-4 will not be ready within the test
  std::this_thread::sleep_for(600ms);
  world.step(Clock::now());
  // postgres-db-4 has no exporter series before it is available.
  eventually_pods({{"postgres-db-1", 0}, {"postgres-db-2", 120}, {"postgres-db-3", 120}});
  EXPECT_NEAR(eventually(plugin_query("ReadConnections"), 240), 240, 1e-6);

  set_replicas("db", 2);
  std::this_thread::sleep_for(600ms);
  world.step(Clock::now());
  // A removed replica's connections are zeroed, not held by the store's lookback.
  eventually_pods({{"postgres-db-1", 0}, {"postgres-db-2", 240}, {"postgres-db-3", 0}});
  EXPECT_NEAR(eventually(plugin_query("ReadConnections"), 240), 240, 1e-6) << "all on the one replica left";
}

TEST_F(WorldOnRealServers, UnreachableServersAreLoggedNotFatal) {
  create_postgres("db", 2);
  auto o = options(5s);
  o.vm_url = "http://127.0.0.1:" + std::to_string(free_loopback_port());
  WorldSimulator world(KubeEndpoint::from_kubeconfig(kubeconfig_), constant_curve("100,,,"), o, log_);
  EXPECT_NO_THROW(world.step(Clock::now()));
  EXPECT_NE(log_.str().find("pushing series: import to " + o.vm_url + " failed"), std::string::npos) << log_.str();

  KubeEndpoint nowhere;
  nowhere.server = o.vm_url;
  std::ostringstream log;
  WorldSimulator lost(nowhere, constant_curve("100,,,"), options(5s), log);
  EXPECT_NO_THROW(lost.step(Clock::now()));
  EXPECT_NE(log.str().find("cannot list Postgres applications"), std::string::npos) << log.str();
}

TEST(WorldOptions, BadOptionsAreRejected) {
  KubeEndpoint e;
  e.server = "http://127.0.0.1:1";
  const auto curve = LoadCurve::parse_csv("time,ReadConnections\n0,1\n", "c");
  std::ostringstream log;
  struct Case {
    const char* name;
    void (*edit)(WorldOptions&);
  };
  for (const Case& c : {Case{"no VM", [](WorldOptions& o) { o.vm_url.clear(); }},
                        Case{"zero time scale", [](WorldOptions& o) { o.time_scale = 0; }},
                        Case{"NaN time scale", [](WorldOptions& o) { o.time_scale = NAN; }},
                        Case{"zero scrape interval", [](WorldOptions& o) { o.scrape_interval = 0ms; }},
                        Case{"negative provisioning", [](WorldOptions& o) { o.provision = -1ms; }}}) {
    WorldOptions o;
    o.vm_url = "http://127.0.0.1:2";
    c.edit(o);
    EXPECT_THROW(WorldSimulator(e, curve, o, log), std::invalid_argument) << c.name;
  }
}

// ---- the dha-world-sim binary -------------------------------------------------------------

struct Run {
  int exit_code;
  std::string output;
};

Run run(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

TEST_F(WorldOnRealServers, BinaryRunsForItsDurationAndWritesTheStatusFile) {
  create_postgres("db", 3);
  const std::string status = kubeconfig_ + ".status";
  const std::string curve = kubeconfig_ + ".csv";
  std::ofstream(curve) << "time,ReadConnections\n0,100\n10,300\n";
  const auto r =
      run(std::string(DHA_WORLD_SIM) + " --kubeconfig " + kubeconfig_ + " --vm-url " + vm_->url() + " --load " + curve +
          " --namespace " + ns_ + " --time-scale 5 --duration 1.2 --status-file " + status);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(ns_ + "/db: Postgres with 3 instances"), std::string::npos) << r.output;
  std::ifstream in(status);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("app=" + ns_ + "/db replicas=3 available=3"), std::string::npos) << text.str();
  EXPECT_EQ(monitor("db"), (Monitor{3, 3, 3, true}));
  std::filesystem::remove(status);
  std::filesystem::remove(curve);
}

TEST(WorldSimBinary, BadArgumentsFailWithAClearMessage) {
  struct Case {
    std::string args, message;
  };
  for (const Case& c :
       {Case{"", "--vm-url is required"}, Case{"--vm-url http://x --load /nonexistent.csv", "File does not exist"},
        Case{"--vm-url http://x --load " DHA_SOURCE_DIR "/examples/demo/load.csv --kubeconfig /nonexistent",
             "cannot read kubeconfig /nonexistent"},
        Case{"--vm-url http://x --load " DHA_SOURCE_DIR "/examples/demo/load.csv --time-scale 0 --kubeconfig x",
             "--time-scale"}}) {
    const auto r = run("env -u KUBECONFIG " DHA_WORLD_SIM " " + c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace dha::testing::world
