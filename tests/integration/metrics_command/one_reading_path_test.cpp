// The tools that explain the operator read what it reads. One DHA in the chart's default shape of
// configuration: metrics-vm finds its endpoint by a urlTemplate naming ${monitoringNamespace} (the
// namespace's namespace.cozystack.io/monitoring label), the Postgres adapter offers grouped
// queries, and the DHA has an averageUtilization CPU target. The operator's observe stage, run in
// process against the same API server and VictoriaMetrics, is the reference; `db-autoscaler
// metrics`, `simulate --from-metrics` and `kubectl dha backtest` must read the same values, from
// the same endpoint, in the same unit.
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
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
#include "shell_run.hpp"

namespace {

namespace fs = std::filesystem;
namespace json = dha::sdk::json;

constexpr const char* kMonitoring = "tenant-root";
// Read replicas db-2 and db-3 hold 30 and 12 active connections and use 0.1 core each; the
// primary db-1 (900 connections, half a core) is no read load.
constexpr double kConnections = 42;
// 2 × 100 millicores, in percent of a t1.micro replica's 500m request (the adapter's default preset).
constexpr double kCpuPercent = 40;

using CliRun = dha::testsupport::ShellRun;

std::int64_t now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Twenty minutes of samples, one a minute up to `until`: gauges constant, CPU counters at a
// constant rate, so an instant read now and every step of a range read past its first five
// minutes see the same values.
std::string series_until(std::int64_t until) {
  std::string d;
  for (int k = 0; k <= 20; ++k) {
    const std::int64_t t = until - (20 - k) * 60;
    const std::string at = " " + std::to_string(t * 1000) + "\n";
    for (const auto& [pod, role, active, cores] :
         std::vector<std::tuple<std::string, std::string, double, double>>{{"postgres-db-1", "primary", 900, 0.5},
                                                                           {"postgres-db-2", "replica", 30, 0.1},
                                                                           {"postgres-db-3", "replica", 12, 0.1}}) {
      const std::string id = "namespace=\"tenant-a\",pod=\"" + pod + "\"";
      d += "kube_pod_labels{" + id +
           ",label_apps_cozystack_io_application_name=\"db\",label_apps_cozystack_io_application_kind=\"Postgres\","
           "label_cnpg_io_instance_role=\"" +
           role + "\"} 1" + at;
      d += "cnpg_backends_total{" + id + ",datname=\"app\",state=\"active\"} " + std::to_string(active) + at;
      if (role == "primary") d += "cnpg_pg_database_size_bytes{" + id + ",datname=\"app\"} 536870912" + at;
      d += "container_cpu_usage_seconds_total{" + id + ",container=\"postgres\"} " +
           std::to_string(1000 + cores * 60 * k) + at;
      d += "cnpg_pg_replication_lag{" + id + "} " + (role == "primary" ? "0" : "2") + at;
      if (role == "primary")
        d += "cnpg_collector_wal_bytes{" + id + ",stats_reset=\"r\"} " + std::to_string(6000 * k) + at;
    }
  }
  return d;
}

class OneReadingPath : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("dha-one-reading-path-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    dha::testing::VictoriaMetrics::Options vm_options;
    vm_options.path_prefix = std::string("/") + kMonitoring + "/select/0/prometheus";
    vm_ = std::make_unique<dha::testing::VictoriaMetrics>(vm_options);
    until_ = now_seconds() / 60 * 60;
    vm_->import_prometheus(series_until(until_));

    dha::testing::ApiServerOptions options;
    options.crd_dirs = {std::string(DHA_SOURCE_DIR) + "/sdk/testing/crds",
                        std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
    api_ = std::make_unique<dha::testing::ApiServer>(options);
    api_->start();
    kubeconfig_ = (dir_ / "kubeconfig").string();
    api_->write_kubeconfig(kubeconfig_);
    // The chart's default endpoint rule, on loopback: the monitoring namespace is in the path.
    config_text_ = R"({"metrics-vm": {"urlTemplate": "http://127.0.0.1:)" + std::to_string(vm_->port()) +
                   R"(/${monitoringNamespace}/select/0/prometheus", "timeoutSeconds": 3}})";
    config_ = (dir_ / "plugin-config.json").string();
    std::ofstream(config_) << config_text_;
    dha_file_ = (dir_ / "db-dha.yaml").string();
    std::ofstream(dha_file_) << kDha;
    const std::string objects = (dir_ / "objects.yaml").string();
    std::ofstream(objects) << std::string(R"(apiVersion: v1
kind: Namespace
metadata: {name: tenant-a, labels: {namespace.cozystack.io/monitoring: )") +
                                  kMonitoring + R"(}}
---
apiVersion: apps.cozystack.io/v1alpha1
kind: Postgres
metadata: {name: db, namespace: tenant-a}
spec: {replicas: 3}
---
)" + kDha;
    ASSERT_EQ(std::system(("kubectl --kubeconfig " + kubeconfig_ + " apply -f " + objects + " >/dev/null").c_str()), 0);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static constexpr const char* kDha = R"(apiVersion: autoscaling.cozystack.io/v1alpha1
kind: DatabaseHorizontalAutoscaler
metadata: {name: db-dha, namespace: tenant-a}
spec:
  targetRef: {kind: Postgres, name: db}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - {type: ReadConnections, target: {averageValue: "100"}}
  - {type: ReadCPUUtilization, target: {averageUtilization: 50}}
)";

  // The operator's own observe stage for db-dha: its plugin set, its cached reader, grouped queries on.
  dha::pipeline::Signals operator_signals() const {
    auto plugins = dha::op::PluginSet::load({{DHA_POSTGRES_DIR, DHA_METRICS_VM_DIR},
                                             {"postgres", "metrics-vm"},
                                             config_text_,
                                             "--plugin-config " + config_});
    dha::kube::ConfigFlags flags;
    flags.kubeconfig = kubeconfig_;
    dha::kube::Client client(dha::kube::Config::load(flags));
    dha::telemetry::Registry registry;
    dha::op::SelfMetrics metrics(registry);
    const dha::op::CachedReader reader(client, metrics);
    dha::pipeline::ObserveOptions options;
    options.query_timeout_seconds = 3;
    const dha::pipeline::Observe observe(reader, *plugins, options);
    const auto dha = client.get(dha::kube::resources::dhas("tenant-a").named("db-dha"));
    const auto spec = dha::model::parse_spec(dha["spec"]);
    auto observed = observe.run("tenant-a", "db-dha", spec);
    if (const auto* stop = std::get_if<dha::pipeline::Stop>(&observed)) {
      ADD_FAILURE() << stop->reason << ": " << stop->message;
      return {};
    }
    return std::get<dha::pipeline::Observed>(observed).signals;
  }

  std::string plugin_flags() const {
    return " --plugin-config " + config_ +
           " --plugin-dir " DHA_POSTGRES_DIR " --plugin-dir " DHA_METRICS_VM_DIR " --plugins postgres,metrics-vm";
  }
  std::string range() const { return " --since 10m --step 60s --until " + std::to_string(until_); }

  fs::path dir_;
  std::unique_ptr<dha::testing::VictoriaMetrics> vm_;
  std::unique_ptr<dha::testing::ApiServer> api_;
  std::int64_t until_ = 0;
  std::string kubeconfig_, config_, config_text_, dha_file_;
};

TEST_F(OneReadingPath, MetricsReadsWhatTheOperatorReads) {
  const auto reference = operator_signals();
  ASSERT_EQ(reference.observation.metrics.size(), 2u);
  ASSERT_EQ(reference.monitoring_namespace, std::optional<std::string>(kMonitoring));
  EXPECT_DOUBLE_EQ(reference.observation.metrics[0].value.value_or(-1), kConnections);
  EXPECT_NEAR(reference.observation.metrics[1].value.value_or(-1), kCpuPercent, 0.01);

  const CliRun r = dha::testsupport::run_shell(std::string(DHA_CLI) + " metrics -n tenant-a db-dha --kubeconfig " +
                                               kubeconfig_ + plugin_flags() + " --timeout 3 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const json::Document doc = json::parse(r.out, "metrics output");
  EXPECT_EQ(std::string(doc["monitoringNamespace"].GetString()), kMonitoring);
  EXPECT_DOUBLE_EQ(doc["values"]["driver"]["ReadConnections"].GetDouble(), *reference.observation.metrics[0].value);
  EXPECT_DOUBLE_EQ(doc["values"]["driver"]["ReadCPUUtilization"].GetDouble(), *reference.observation.metrics[1].value);
  // Both read from the namespace's grouped answer, as the operator's reads were.
  for (const auto& reading : reference.readings) {
    if (reading.what == "ReadConnections" || reading.what == "ReadCPUUtilization") {
      EXPECT_TRUE(reading.grouped) << reading.what;
    }
  }
  EXPECT_EQ(std::string(doc["aggregation"]["driver.ReadConnections"].GetString()),
            "sum of 1 series, from the namespace's grouped answer");
  // What the gates compare: per read replica (3 instances, one primary).
  EXPECT_NEAR(doc["perReadReplica"]["driver"]["ReadCPUUtilization"].GetDouble(), kCpuPercent / 2, 0.01);
  // The ready estimate an Adaptive DHA without a measured ready time decides with: 0.5 GiB, 93.5 s.
  ASSERT_TRUE(reference.observation.ready_estimate_seconds);
  EXPECT_DOUBLE_EQ(*reference.observation.ready_estimate_seconds, 88 + 11 * 0.5);
  EXPECT_DOUBLE_EQ(doc["values"]["readyEstimateSeconds"].GetDouble(), 88 + 11 * 0.5);
}

TEST_F(OneReadingPath, SimulateAndBacktestReadTheSameHistory) {
  const auto reference = operator_signals();
  ASSERT_EQ(reference.observation.metrics.size(), 2u);
  const std::string csv = (dir_ / "history.csv").string();
  const CliRun simulate = dha::testsupport::run_shell(
      std::string(DHA_CLI) + " simulate --from-metrics --kind Postgres -n tenant-a db --dha " + dha_file_ +
      " --kubeconfig " + kubeconfig_ + plugin_flags() + range() + " --summary-only --save-load " + csv + " 2>&1");
  ASSERT_EQ(simulate.exit_code, 0) << simulate.out;
  EXPECT_NE(simulate.out.find(std::string("monitoring namespace: ") + kMonitoring), std::string::npos) << simulate.out;
  // The last step of the history is what the operator reads now, in the same unit.
  std::ifstream in(csv);
  std::string header, line, last;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("time,ReadConnections,ReadCPUUtilization", 0), 0u) << header;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::stringstream cells(last);
  std::string time, connections, cpu;
  std::getline(cells, time, ',');
  std::getline(cells, connections, ',');
  std::getline(cells, cpu, ',');
  EXPECT_EQ(time, "600");
  EXPECT_DOUBLE_EQ(std::stod(connections), *reference.observation.metrics[0].value) << last;
  EXPECT_NEAR(std::stod(cpu), *reference.observation.metrics[1].value, 0.01) << last;

  // `kubectl dha backtest` reads the DHA from the cluster and runs the same: the same summary.
  const std::string kubectl_dha = (fs::path(DHA_CLI).parent_path() / "kubectl-dha").string();
  const CliRun backtest = dha::testsupport::run_shell(kubectl_dha + " backtest db-dha -n tenant-a --kubeconfig " +
                                                      kubeconfig_ + plugin_flags() + range() + " 2>&1");
  ASSERT_EQ(backtest.exit_code, 0) << backtest.out;
  const auto summary = [](const std::string& out) { return out.substr(std::min(out.find("summary:"), out.size())); };
  EXPECT_NE(backtest.out.find(std::string("monitoring namespace: ") + kMonitoring), std::string::npos) << backtest.out;
  EXPECT_EQ(summary(backtest.out), summary(simulate.out));
  EXPECT_NE(summary(backtest.out), "");
}

}  // namespace
