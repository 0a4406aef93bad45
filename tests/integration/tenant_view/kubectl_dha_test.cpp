// The kubectl plugin against what the real operator wrote: `kubectl dha status|why|history`,
// found by kubectl on PATH as kubectl-dha (the link installed next to db-autoscaler).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/wait.h>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "operator_world.hpp"

namespace dha::optest {
namespace {

using KubectlDha = OperatorWorld;

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

class Plugin {
 public:
  explicit Plugin(const testing::TestCluster& cluster, const std::string& identity = "admin")
      : kubeconfig_(cluster.kubeconfig(identity)) {}
  CommandResult kubectl(const std::string& args) const {
    const std::string bin_dir = std::filesystem::path(DHA_BINARY).parent_path().string();
    return run("PATH=" + bin_dir + ":$PATH KUBECONFIG=" + kubeconfig_ + " kubectl " + args);
  }
  // db-autoscaler itself, with no cluster: what `kubectl dha` is compared with.
  static CommandResult db_autoscaler(const std::string& args) { return run(std::string(DHA_BINARY) + " " + args); }

 private:
  static CommandResult run(const std::string& line) {
    const std::string command = line + " 2>&1";
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buf;
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) result.output += buf.data();
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }

  std::string kubeconfig_;
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(KubectlDha, StatusWhyAndHistoryTellTheScaleUpInWordsAndNumbers) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(350);  // 350 connections / target 100 -> 4 read replicas + the primary, one step at a time
  create_dha({});
  auto_converge(true);
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 5; }, 30s)) << "no scale to 5";
  // Converged: the last decision went through every gate.
  ASSERT_TRUE(
      eventually([&] { return status_int("currentReplicas") == 5 && condition("AbleToScale") == "Ready"; }, 30s));

  const Plugin plugin(*cluster_);
  const auto status = plugin.kubectl("dha status db-dha -n tenant-a");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_TRUE(has(status.output, "Name:        tenant-a/db-dha\n")) << status.output;
  EXPECT_TRUE(has(status.output, "Target:      Postgres/db (apps.cozystack.io)\n")) << status.output;
  EXPECT_TRUE(has(status.output, "Replicas:    current ")) << status.output;
  EXPECT_TRUE(has(status.output, "(min 2, max 6)")) << status.output;
  EXPECT_TRUE(has(status.output, "/100 (ReadConnections)")) << status.output;
  EXPECT_TRUE(has(status.output, "Decided by:  ")) << status.output;
  EXPECT_TRUE(has(status.output, "AbleToScale")) << status.output;
  EXPECT_TRUE(has(status.output, "Scaled")) << status.output;
  EXPECT_TRUE(has(status.output, "scaled Postgres/db replicas 3 -> 4")) << status.output;

  const auto why = plugin.kubectl("dha why db-dha -n tenant-a");
  ASSERT_EQ(why.exit_code, 0) << why.output;
  EXPECT_TRUE(has(why.output, "The metrics asked for ")) << why.output;
  for (const char* gate : {"FailSafe", "LagBrake", "Stabilization", "Bounds", "StepLimit", "DryRun"})
    EXPECT_TRUE(has(why.output, gate)) << gate << " missing from:\n" << why.output;

  const auto history = plugin.kubectl("dha history db-dha -n tenant-a");
  ASSERT_EQ(history.exit_code, 0) << history.output;
  EXPECT_TRUE(has(history.output, "Last scale:  20")) << history.output;
  EXPECT_TRUE(has(history.output, "Scaled   scaled Postgres/db replicas 3 -> 4")) << history.output;
  EXPECT_TRUE(has(history.output, "Scaled   scaled Postgres/db replicas 4 -> 5")) << history.output;

  const auto missing = plugin.kubectl("dha status nothing-here -n tenant-a");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(has(missing.output, "DatabaseHorizontalAutoscaler tenant-a/nothing-here not found")) << missing.output;
}

// A tenant who may read the DHA but not list Events is told that, with the server's reason, where
// the events would be: "none" would say nothing went wrong, and a Warning event is there.
TEST_F(KubectlDha, StatusSaysTheEventsCouldNotBeReadAndWhy) {
  create_postgres(3);
  set_load(150);
  create_dha({});  // no WorkloadMonitor: a HealthUnknown Warning event
  start_operator();
  ASSERT_TRUE(eventually([&] { return !events("HealthUnknown").empty(); }, 30s));

  const auto admin = Plugin(*cluster_).kubectl("dha status db-dha -n tenant-a");
  ASSERT_EQ(admin.exit_code, 0) << admin.output;
  EXPECT_TRUE(has(admin.output, "Events (newest first):\n")) << admin.output;

  const Plugin reader(*cluster_, "reader");
  const auto status = reader.kubectl("dha status db-dha -n tenant-a");
  ASSERT_EQ(status.exit_code, 0) << status.output;
  EXPECT_TRUE(has(status.output, "Name:        tenant-a/db-dha\n")) << status.output;
  EXPECT_TRUE(has(status.output, "HealthUnknown")) << status.output;  // the conditions are readable
  const std::string unread =
      "<forbidden: User \"dha-reader\" cannot list resource \"events\" in API group \"\" in the namespace "
      "\"tenant-a\">";
  EXPECT_TRUE(has(status.output, "Events:      " + unread + "\n")) << status.output;
  EXPECT_FALSE(has(status.output, "Events:      none")) << status.output;
  if (const char* record = std::getenv("DHA_TENANT_VIEW_RECORD"); record != nullptr)
    std::ofstream(std::string(record) + "/dha-status-events-forbidden.txt")
        << "$ kubectl dha status db-dha -n tenant-a\n"
        << status.output;

  const auto history = reader.kubectl("dha history db-dha -n tenant-a");
  ASSERT_EQ(history.exit_code, 0) << history.output;
  EXPECT_TRUE(has(history.output, "Scale actions: " + unread + "\n")) << history.output;
}

std::string to_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

// Six hours of a read load that rises above one replica's target and falls back, ending an hour
// ago, as the exporters would have pushed it (one sample a minute).
std::int64_t push_six_hours(testing::VictoriaMetrics& vm) {
  const std::int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const std::int64_t until = now / 60 * 60 - 3600;
  std::string text;
  for (std::int64_t t = until - 6 * 3600; t <= until; t += 60) {
    const double load = 150 + 250 * std::sin(M_PI * static_cast<double>(until - t) / (6 * 3600));
    const std::int64_t ms = t * 1000;
    text += fmt::format(
        "cnpg_backends_total{{namespace=\"{0}\",pod=\"db-2\",state=\"active\"}} {1:.1f} {2}\n"
        "kube_pod_labels{{namespace=\"{0}\",pod=\"db-2\",label_apps_cozystack_io_application_name=\"{3}\","
        "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"replica\"}} 1 {2}\n"
        "kube_pod_labels{{namespace=\"{0}\",pod=\"db-1\",label_apps_cozystack_io_application_name=\"{3}\","
        "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"primary\"}} 1 {2}\n",
        kNamespace, load, ms, kApp);
  }
  vm.import_prometheus(text);
  return until;
}

// The backtest reads the DHA and its Postgres from the cluster and prints exactly what
// `simulate --from-metrics` prints for the same spec and object written to files.
TEST_F(KubectlDha, BacktestPrintsWhatSimulateFromMetricsPrintsForTheClustersSpec) {
  create_postgres(3, 3);  // three synchronous standbys: a quorum floor above minReplicas
  create_dha({});
  const std::int64_t until = push_six_hours(*vm_);
  const std::string range = " --since 6h --step 60s --until " + std::to_string(until);
  const std::string plugin_dirs = " --plugin-dir " DHA_POSTGRES_PLUGIN_DIR " --plugin-dir " DHA_METRICS_VM_PLUGIN_DIR;
  std::ofstream(dir_ + "/db-dha.json") << to_json(dha());
  std::ofstream(dir_ + "/db.json") << to_json(
      admin_->get(kube::ResourceRef{"apps.cozystack.io", "v1alpha1", "postgreses", kNamespace, kApp}));
  const std::string simulate = "simulate --from-metrics " + vm_->url() + " --kind Postgres -n tenant-a db" + range +
                               plugin_dirs + " --plugins postgres,metrics-vm --dha " + dir_ + "/db-dha.json --target " +
                               dir_ + "/db.json";

  const Plugin plugin(*cluster_);
  const auto backtest =
      plugin.kubectl("dha backtest db-dha -n tenant-a --from-metrics " + vm_->url() + range + plugin_dirs);
  ASSERT_EQ(backtest.exit_code, 0) << backtest.output;
  const auto expected = Plugin::db_autoscaler(simulate + " --summary-only");
  ASSERT_EQ(expected.exit_code, 0) << expected.output;
  // The backtest reads the namespace from the cluster, so it also names its monitoring label;
  // simulate given files knows no namespace. Everything else is the same.
  const auto without_monitoring_line = [](std::string out) {
    const auto at = out.find("\n  monitoring namespace: ");
    if (at != std::string::npos) out.erase(at, out.find('\n', at + 1) - at);
    return out;
  };
  EXPECT_TRUE(has(backtest.output, "\n  monitoring namespace: tenant-root\n")) << backtest.output;
  EXPECT_EQ(without_monitoring_line(backtest.output), expected.output);
  EXPECT_TRUE(has(backtest.output, "history: Postgres tenant-a/db from " + vm_->url() + ", 361 steps of 60s"))
      << backtest.output;
  EXPECT_FALSE(has(backtest.output, "scale actions:          0 ")) << backtest.output;
  // Its ratio is the honest one simulate prints, from the same ledger: what the policy spent
  // plus what it ran short of the need, over the bound, never below 1, the shortfall named.
  const auto json = Plugin::db_autoscaler(simulate + " --summary-only --json " + dir_ + "/backtest.json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  std::ifstream json_file(dir_ + "/backtest.json");
  const std::string json_text((std::istreambuf_iterator<char>(json_file)), std::istreambuf_iterator<char>());
  rapidjson::Document doc;
  doc.Parse(json_text.c_str());
  ASSERT_TRUE(!doc.HasParseError() && doc.HasMember("summary")) << json_text;
  const auto& sum = doc["summary"];
  for (const char* field : {"boundReplicaSeconds", "replicaSecondsBoundKnown", "shortfallReplicaSeconds"})
    ASSERT_TRUE(sum.HasMember(field) && sum[field].IsInt64()) << field << " missing from " << json_text;
  const std::int64_t bound = sum["boundReplicaSeconds"].GetInt64();
  const std::int64_t shortfall = sum["shortfallReplicaSeconds"].GetInt64();
  const double ratio = static_cast<double>(sum["replicaSecondsBoundKnown"].GetInt64() + shortfall) / bound;
  EXPECT_GE(ratio, 1.0);
  const std::string bound_line = fmt::format(
      "\n  clairvoyant bound:      {} replica-seconds ({:.2f}x{})\n", bound, ratio,
      shortfall > 0 ? fmt::format(", counting {} replica-seconds short of the need as spent", shortfall) : "");
  EXPECT_TRUE(has(backtest.output, bound_line)) << bound_line << backtest.output;
  if (const char* record = std::getenv("DHA_TENANT_VIEW_RECORD"); record != nullptr)
    std::ofstream(std::string(record) + "/dha-backtest.txt")
        << "$ kubectl dha backtest db-dha -n tenant-a --from-metrics " << vm_->url() << range << "\n"
        << backtest.output;

  const auto compared = plugin.kubectl("dha backtest db-dha -n tenant-a --from-metrics " + vm_->url() + range +
                                       plugin_dirs + " --profile default --profile adaptive");
  ASSERT_EQ(compared.exit_code, 0) << compared.output;
  const auto expected_table = Plugin::db_autoscaler(simulate + " --compare --profile default --profile adaptive");
  EXPECT_EQ(without_monitoring_line(compared.output), expected_table.output);
  EXPECT_TRUE(has(compared.output, "adaptive")) << compared.output;
  EXPECT_TRUE(has(compared.output, "behaviour       replica-s    short  xbound")) << compared.output;
  if (const char* record = std::getenv("DHA_TENANT_VIEW_RECORD"); record != nullptr)
    std::ofstream(std::string(record) + "/dha-backtest-compare.txt")
        << "$ kubectl dha backtest db-dha -n tenant-a --from-metrics " << vm_->url() << range
        << " --profile default --profile adaptive\n"
        << compared.output;

  const auto missing = plugin.kubectl("dha backtest nothing-here -n tenant-a --from-metrics " + vm_->url());
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_TRUE(has(missing.output, "DatabaseHorizontalAutoscaler tenant-a/nothing-here not found")) << missing.output;
  // The URL the operator's metric source is configured with serves as well as the flag.
  std::ofstream(dir_ + "/plugins.json") << R"({"metrics-vm":{"url":")" + vm_->url() + R"("}})";
  const auto configured =
      plugin.kubectl("dha backtest db-dha -n tenant-a --plugin-config " + dir_ + "/plugins.json" + range + plugin_dirs);
  ASSERT_EQ(configured.exit_code, 0) << configured.output;
  // The same simulation; only the history line says where it read from, as the operator would.
  const auto summary_of = [](const std::string& out) {
    return out.substr(std::min(out.find("\nsummary:"), out.size()));
  };
  EXPECT_EQ(summary_of(configured.output), summary_of(expected.output));
  EXPECT_TRUE(has(configured.output, "from the configured metric source")) << configured.output;
  EXPECT_TRUE(has(configured.output, "monitoring namespace: tenant-root")) << configured.output;
  // A URL template is filled with the namespace's monitoring label, as in the operator. It
  // points at a closed loopback port, so the error names the URL the tool built.
  std::ofstream(dir_ + "/template.json")
      << R"({"metrics-vm":{"urlTemplate":"http://127.0.0.1:1/${monitoringNamespace}"}})";
  const auto templated = plugin.kubectl("dha backtest db-dha -n tenant-a --plugin-config " + dir_ + "/template.json" +
                                        range + plugin_dirs);
  EXPECT_EQ(templated.exit_code, 1) << templated.output;
  EXPECT_TRUE(has(templated.output, "http://127.0.0.1:1/tenant-root")) << templated.output;
}

}  // namespace
}  // namespace dha::optest
