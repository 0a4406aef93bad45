#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "dha/decide/formula.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/json.hpp"
#include "dha/model/spec.hpp"
#include "dha/sdk/json.hpp"
#include "dha/telemetry/registry.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "host/cached_reader.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "pipeline/observe.hpp"
#include "pipeline/target.hpp"
#include "shell_run.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

namespace json = dha::sdk::json;

using CliRun = dha::testsupport::ShellRun;
using dha::testsupport::run_shell;

// Runs the CLI with stdout captured and stderr dropped (its warnings are not under test here).
CliRun run_cli(const std::string& args, const std::string& cli = DHA_CLI) {
  return run_shell(cli + " metrics " + args + " 2>/dev/null");
}

// The same with stderr in `out` too, for the messages.
CliRun run_cli_with_stderr(const std::string& args) {
  return run_shell(std::string(DHA_CLI) + " metrics " + args + " 2>&1");
}

std::string base_args(const std::string& kind, const std::string& url) {
  return "--kind " + kind + " --namespace tenant-a --name db --metrics-url " + url +
         " --plugin-dir " DHA_PLUGIN_BUILD_DIR " --timeout 3";
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class MetricsCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vm_ = new dha::testing::VictoriaMetrics();
    const int64_t t1 = now_ms() - 1000, t0 = t1 - 60000;
    auto at = [](double v, int64_t t) { return " " + std::to_string(v) + " " + std::to_string(t) + "\n"; };
    std::string d;
    for (const auto& [pod, role, active, lag] :
         std::vector<std::tuple<std::string, std::string, double, double>>{{"postgres-db-1", "primary", 900, 0},
                                                                           {"postgres-db-2", "replica", 30, 3},
                                                                           {"postgres-db-3", "replica", 12, 7}}) {
      const std::string id = "namespace=\"tenant-a\",pod=\"" + pod + "\"";
      d += "kube_pod_labels{" + id +
           ",label_apps_cozystack_io_application_name=\"db\",label_apps_cozystack_io_application_kind=\"Postgres\","
           "label_cnpg_io_instance_role=\"" +
           role + "\"}" + at(1, t1);
      d += "cnpg_backends_total{" + id + ",datname=\"app\",state=\"active\"}" + at(active, t1);
      d += "cnpg_pg_replication_lag{" + id + "}" + at(lag, t1);
      if (role == "primary") {
        d += "cnpg_collector_wal_bytes{" + id + ",stats_reset=\"r\"}" + at(0, t0) + "cnpg_collector_wal_bytes{" + id +
             ",stats_reset=\"r\"}" + at(6000, t1);
      }
    }
    d += "cnpg_backends_total{namespace=\"tenant-b\",pod=\"postgres-db-2\",state=\"active\"}" + at(5000, t1);
    // The primary's database sizes, 1.5 GiB: what the postgres adapter's ready estimate reads.
    d += "cnpg_pg_database_size_bytes{namespace=\"tenant-a\",pod=\"postgres-db-1\",datname=\"app\"}" +
         at(1.5 * 1073741824, t1);
    vm_->import_prometheus(d);
  }
  static void TearDownTestSuite() {
    delete vm_;
    vm_ = nullptr;
  }
  static dha::testing::VictoriaMetrics* vm_;
};
dha::testing::VictoriaMetrics* MetricsCommand::vm_ = nullptr;

TEST_F(MetricsCommand, PrintsQueriesAndWhatTheOperatorWouldSee) {
  const CliRun r = run_cli(base_args("Postgres", vm_->url()));
  // A query that returned nothing is a failure to read: exit 1, with everything still printed.
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  const auto& values = doc["values"];
  EXPECT_DOUBLE_EQ(values["driver"]["ReadConnections"].GetDouble(), 42);
  EXPECT_DOUBLE_EQ(values["lagSeconds"].GetDouble(), 7);
  EXPECT_NEAR(values["writeRate"].GetDouble(), 100, 0.5);
  // cAdvisor series were not loaded: that value is missing, and the errors say why.
  EXPECT_TRUE(values["driver"]["ReadCPUUtilization"].IsNull());
  EXPECT_NE(std::string(doc["errors"]["driver.ReadCPUUtilization"].GetString()).find("NOT_FOUND"), std::string::npos);
  EXPECT_FALSE(doc["errors"].HasMember("lag"));
  const std::string q = doc["queries"]["driver"]["ReadConnections"].GetString();
  EXPECT_NE(q.find(R"(cnpg_backends_total{namespace="tenant-a", state="active"})"), std::string::npos) << q;
  EXPECT_EQ(std::string(doc["target"]["engine"].GetString()), "postgres");
}

// From a DHA, as a tenant asks "why is my DHA frozen": the target and the metric types come from
// the DHA, the metrics plugin's settings from the operator's --plugin-config file.
TEST_F(MetricsCommand, ReadsTheTargetFromADhaWithTheOperatorsPluginConfig) {
  dha::testing::ApiServerOptions options;
  options.crd_dirs = {std::string(DHA_SOURCE_DIR) + "/sdk/testing/crds",
                      std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
  dha::testing::ApiServer api(options);
  api.start();
  const auto dir = std::filesystem::temp_directory_path() / ("dha-metrics-dha-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string kubeconfig = (dir / "kubeconfig").string();
  api.write_kubeconfig(kubeconfig);
  const std::string config = (dir / "plugin-config.json").string();
  std::ofstream(config) << R"({"metrics-vm": {"url": ")" << vm_->url() << R"(", "timeoutSeconds": 3}})";
  // Created as a tenant would, with kubectl.
  const std::string objects = (dir / "objects.yaml").string();
  std::ofstream(objects) << R"(apiVersion: v1
kind: Namespace
metadata: {name: tenant-a}
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Postgres
metadata: {name: db, namespace: tenant-a}
spec: {replicas: 3}
---
apiVersion: autoscaling.cozystack.io/v1alpha1
kind: DatabaseHorizontalAutoscaler
metadata: {name: reads, namespace: tenant-a}
spec:
  targetRef: {kind: Postgres, name: db}
  minReplicas: 2
  maxReplicas: 5
  metrics: [{type: ReadConnections, target: {averageValue: "100"}}]
)";
  ASSERT_EQ(std::system(("kubectl --kubeconfig " + kubeconfig + " apply -f " + objects + " >/dev/null").c_str()), 0);
  const CliRun r = run_cli("--kubeconfig " + kubeconfig + " -n tenant-a reads --plugin-config " + config +
                           " --plugin-dir " DHA_PLUGIN_BUILD_DIR " --timeout 3");
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_DOUBLE_EQ(doc["values"]["driver"]["ReadConnections"].GetDouble(), 42);
  EXPECT_FALSE(doc["values"]["driver"].HasMember("ReadCPUUtilization")) << "only the DHA's metric types";
  EXPECT_EQ(std::string(doc["target"]["kind"].GetString()), "Postgres");
  EXPECT_EQ(std::string(doc["target"]["name"].GetString()), "db");
  // The CRD's default policy is Adaptive, and nothing is measured yet: the adapter's ready
  // estimate is read, 88 s + 11 s per GiB of the primary's 1.5 GiB.
  ASSERT_TRUE(doc["values"].HasMember("readyEstimateSeconds")) << r.out;
  EXPECT_DOUBLE_EQ(doc["values"]["readyEstimateSeconds"].GetDouble(), 88 + 11 * 1.5);
}

TEST_F(MetricsCommand, EveryQueryAnsweredExitsZero) {
  const CliRun r = run_cli(base_args("Postgres", vm_->url()) + " --metric-type ReadConnections");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_EQ(doc["errors"].MemberCount(), 0u);
}

TEST_F(MetricsCommand, RedisHasNoLagSignalAndSaysSo) {
  const CliRun r = run_cli(base_args("Redis", vm_->url()) + " --metric-type ReadConnections");
  // No lag query is not a failed query.
  ASSERT_NE(r.exit_code, 2) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_TRUE(doc["values"]["lagSeconds"].IsNull());
  EXPECT_EQ(std::string(doc["queries"]["lag"].GetString()), "");
  EXPECT_EQ(std::string(doc["errors"]["lag"].GetString()), "the engine adapter has no query for this signal");
}

TEST(MetricsCommandFaults, MetricsBackendDownExitsOneWithReasonsAndThePromQLOnce) {
  dha::testing::VictoriaMetrics vm;
  const std::string url = vm.url();
  vm.stop();
  const CliRun r = run_cli(base_args("Postgres", url));
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_TRUE(doc["values"]["driver"]["ReadConnections"].IsNull());
  const std::string error = doc["errors"]["driver.ReadConnections"].GetString();
  EXPECT_NE(error.find("UNAVAILABLE"), std::string::npos) << error;
  // The error does not repeat the query percent-encoded: it is printed once, under "queries".
  EXPECT_EQ(error.find("cnpg_backends_total"), std::string::npos) << error;
  EXPECT_EQ(error.find("%7B"), std::string::npos) << error;
  EXPECT_LT(error.size(), 200u) << error;
}

// No URL anywhere is the operator's default configuration: metrics-vm's URL template needs the
// namespace's monitoring label, which a target given by kind and name has none of; so says each error.
TEST(MetricsCommandFaults, NoUrlAnywhereReadsAsTheDefaultTemplateAndSaysWhatIsMissing) {
  const CliRun r = run_cli(
      "--kind Postgres --namespace tenant-a --name db --metric-type ReadConnections "
      "--plugin-dir " DHA_PLUGIN_BUILD_DIR);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_TRUE(doc["monitoringNamespace"].IsNull());
  const std::string error = doc["errors"]["driver.ReadConnections"].GetString();
  EXPECT_NE(error.find("has no monitoring namespace label"), std::string::npos) << error;
}

TEST(MetricsCommandFaults, UnknownKindIsNoAdapterAndBadInput) {
  const CliRun r = run_cli(base_args("Cassandra", "http://127.0.0.1:1"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out.empty());
  const std::string err = run_cli_with_stderr(base_args("Cassandra", "http://127.0.0.1:1")).out;
  EXPECT_NE(err.find("NoAdapter"), std::string::npos) << err;
  EXPECT_NE(err.find("apps.cozystack.io/Postgres"), std::string::npos) << err;
}

// `--plugin-dir build` with only the author's adapter in it: the error names every directory
// searched, the installation's included, and what each held.
TEST(MetricsCommandFaults, AMissingMetricsPluginListsEachDirectorySearchedAndWhatItHeld) {
  const CliRun r = run_cli_with_stderr(
      "--api-group db.example.com --kind AcmeDB --namespace tenant-a --name db "
      "--metrics-url http://127.0.0.1:1 --plugin-dir " DHA_PER_POD_PLUGIN_DIR);
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const std::string installed = run_shell(std::string(DHA_CLI) + " version").out;
  const std::string installed_dir = installed.substr(installed.find("plugin directory: ") + 18);
  EXPECT_NE(
      r.out.find("metrics plugin \"metrics-vm\" is not loaded; plugin directories searched: " DHA_PER_POD_PLUGIN_DIR
                 " (holds perpod-acmedb.so), " +
                 installed_dir.substr(0, installed_dir.find('\n')) + " (does not exist)"),
      std::string::npos)
      << r.out;
}

// The installation's plugin directory is searched after the given ones: an author's build adds
// its adapter, and the bundled metrics-vm still comes from the installation.
TEST(MetricsCommandInstalled, TheInstalledMetricsVmIsFoundAfterTheGivenPluginDir) {
  namespace fs = std::filesystem;
  const fs::path prefix = fs::temp_directory_path() / ("dha-metrics-installed-" + std::to_string(::getpid()));
  fs::create_directories(prefix / "bin");
  fs::copy_file(DHA_CLI, prefix / "bin/db-autoscaler", fs::copy_options::overwrite_existing);
  const std::string cli = (prefix / "bin/db-autoscaler").string();
  const std::string version = run_shell(cli + " version").out;
  const auto at = version.find("plugin directory: ");
  ASSERT_NE(at, std::string::npos) << version;
  const fs::path plugin_dir = version.substr(at + 18, version.find('\n', at) - at - 18);
  ASSERT_EQ(plugin_dir.string().rfind(prefix.string(), 0), 0u) << plugin_dir;  // inside the copy's prefix
  fs::create_directories(plugin_dir);
  fs::copy_file(std::string(DHA_METRICS_VM_DIR) + "/metrics-vm.so", plugin_dir / "metrics-vm.so");

  // Nothing listens on port 1: every query fails (exit 1), but only after metrics-vm was loaded.
  const CliRun r = run_cli(
      "--api-group db.example.com --kind AcmeDB --namespace tenant-a --name db --metrics-url "
      "http://127.0.0.1:1 --plugin-dir " DHA_PER_POD_PLUGIN_DIR
      " --metric-type ReadConnections "
      "--timeout 2",
      cli);
  fs::remove_all(prefix);
  ASSERT_EQ(r.exit_code, 1) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_EQ(std::string(doc["target"]["engine"].GetString()), "perpod-acmedb");
  const std::string error = doc["errors"]["driver.ReadConnections"].GetString();
  EXPECT_EQ(error.rfind("UNAVAILABLE", 0), 0u) << error;
}

// The operator's observe stage, in process, for the fixture AcmeDB "db" with 3 instances: what the
// gates compare for ReadConnections. No API server: the namespace and health reads fail (noted as
// problems), which leaves the metrics untouched.
double operator_per_read_replica(const std::string& vm_url) {
  namespace op = dha::op;
  namespace pipeline = dha::pipeline;
  auto plugins = op::PluginSet::load({{DHA_PER_POD_PLUGIN_DIR, DHA_METRICS_VM_DIR},
                                      {"perpod-acmedb", "metrics-vm"},
                                      R"({"metrics-vm": {"url": ")" + vm_url + R"("}})"});
  dha::kube::Config config;
  config.server = "http://127.0.0.1:1";
  dha::kube::Client client(config);
  dha::telemetry::Registry registry;
  op::SelfMetrics metrics(registry);
  op::CachedReader reader(client, metrics);
  const pipeline::Observe observe(reader, *plugins);

  const auto spec = dha::model::parse_spec(dha::kube::parse_json(
      R"({"targetRef": {"apiGroup": "db.example.com", "kind": "AcmeDB", "name": "db"}, "minReplicas": 2,
          "maxReplicas": 6, "metrics": [{"type": "ReadConnections", "target": {"averageValue": "150"}}]})"));
  auto located = pipeline::locate_target(*plugins, *spec.target_ref, "tenant-a");
  if (const auto* stop = std::get_if<pipeline::Stop>(&located)) {
    ADD_FAILURE() << stop->message;
    return -1;
  }
  auto& target = std::get<pipeline::Target>(located);
  target.object = std::make_shared<const rapidjson::Document>(dha::kube::parse_json(
      R"({"apiVersion": "db.example.com/v1", "kind": "AcmeDB",
          "metadata": {"name": "db", "namespace": "tenant-a"}, "spec": {"replicas": 3}})"));
  const auto read = pipeline::read_topology(target);
  if (const auto* stop = std::get_if<pipeline::Stop>(&read)) {
    ADD_FAILURE() << stop->message;
    return -1;
  }
  const auto topology = std::get<dha::sdk::Topology>(read);
  const auto signals = observe.signals({"tenant-a", "db-dha", spec, *target.engine, *target.object, topology});
  const auto evaluated = dha::decide::evaluate_metrics(spec, signals.observation);
  EXPECT_TRUE(evaluated.available);
  return evaluated.metrics.empty() ? -1 : evaluated.metrics[0].average;
}

// Several series per pod (one per database) and several pods: the command combines them as the
// operator does and prints the per-read-replica value the operator compares, not the first series.
TEST(MetricsCommandSameValue, SeveralSeriesPerPodAndSeveralPodsGiveTheOperatorsValue) {
  dha::testing::VictoriaMetrics vm;
  const int64_t t = now_ms() - 1000;
  std::string d;
  for (const auto& [pod, database, value] :
       std::vector<std::tuple<std::string, std::string, double>>{{"acmedb-db-0", "orders", 10},
                                                                 {"acmedb-db-0", "users", 20},
                                                                 {"acmedb-db-1", "orders", 30},
                                                                 {"acmedb-db-1", "users", 5},
                                                                 {"acmedb-db-2", "orders", 7},
                                                                 {"acmedb-db-2", "users", 8}}) {
    d += "acmedb_client_connections{namespace=\"tenant-a\",cluster=\"db\",pod=\"" + pod + "\",database=\"" + database +
         "\"} " + std::to_string(value) + " " + std::to_string(t) + "\n";
  }
  // Another cluster's series in the same namespace: the scoping keeps it out.
  d += "acmedb_client_connections{namespace=\"tenant-a\",cluster=\"other\",pod=\"acmedb-other-0\","
       "database=\"x\"} 900 " +
       std::to_string(t) + "\n";
  vm.import_prometheus(d);

  const CliRun r =
      run_cli("--api-group db.example.com --kind AcmeDB --namespace tenant-a --name db --metrics-url " + vm.url() +
              " --plugin-dir " DHA_PER_POD_PLUGIN_DIR " --plugin-dir " DHA_METRICS_VM_DIR
              " --metric-type ReadConnections --replicas 3 --timeout 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json::Document doc = json::parse(r.out, "output");
  EXPECT_DOUBLE_EQ(doc["values"]["driver"]["ReadConnections"].GetDouble(), 80);  // all six series, not the first
  EXPECT_EQ(std::string(doc["aggregation"]["driver.ReadConnections"].GetString()), "sum of 6 series");
  EXPECT_EQ(doc["perReadReplica"]["readReplicas"].GetInt(), 2);  // 3 instances, one of them the primary
  const double command = doc["perReadReplica"]["driver"]["ReadConnections"].GetDouble();
  EXPECT_DOUBLE_EQ(command, 40);
  EXPECT_DOUBLE_EQ(command, operator_per_read_replica(vm.url()));
}

}  // namespace
