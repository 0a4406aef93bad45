// What a tenant sees when the operator stops or holds back, against the real operator binary:
// the cause named in the condition (REASON column, describe), a Warning event, and the same in
// `kubectl dha status`. Each scenario failed before: the cause was only in the operator log, a
// second DHA fought the first, a new DHA scaled down seconds after creation, and REASON showed
// the lag brake while another writer owned the count.
#include <fmt/format.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "dha/kube/json.hpp"
#include "operator_world.hpp"

namespace dha::optest {
namespace {

using WhatATenantSees = OperatorWorld;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) out += buf.data();
  ::pclose(pipe);
  return out;
}

// kubectl as the tenant runs it, with kubectl-dha on PATH. With DHA_TENANT_VIEW_RECORD set to a
// directory, each output is also written there (the docs show them).
std::string kubectl(const testing::TestCluster& cluster, const std::string& args, const std::string& record_as = {}) {
  const std::string kubeconfig = cluster.kubeconfig("admin");
  const std::string bin_dir = std::filesystem::path(DHA_BINARY).parent_path().string();
  const std::string out = run("PATH=" + bin_dir + ":$PATH KUBECONFIG=" + kubeconfig + " kubectl " + args);
  if (const char* record = std::getenv("DHA_TENANT_VIEW_RECORD"); record != nullptr && !record_as.empty())
    std::ofstream(std::string(record) + "/" + record_as + ".txt") << "$ kubectl " << args << "\n" << out;
  return out;
}

// A column of the first row of `kubectl get`, found by its header's position (METRICS has spaces).
std::string column(const std::string& get_output, const std::string& name) {
  const auto header_end = get_output.find('\n');
  if (header_end == std::string::npos) return {};
  const std::string header = get_output.substr(0, header_end);
  const auto at = header.find(" " + name + " ");
  const std::string row = get_output.substr(header_end + 1);
  if (at == std::string::npos || row.size() <= at + 1) return {};
  return row.substr(at + 1, row.find(' ', at + 1) - at - 1);
}

std::string reason_column(const std::string& get_output) { return column(get_output, "REASON"); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    lines.push_back(text.substr(start, end - start));
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

// The lines of a describe section: those after `title` indented deeper than it.
std::vector<std::string> section(const std::vector<std::string>& lines, const std::string& title) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto at = lines[i].find(title + ":");
    if (at == std::string::npos || lines[i].find_first_not_of(' ') != at) continue;
    for (std::size_t j = i + 1; j < lines.size() && lines[j].find_first_not_of(' ') > at; ++j) out.push_back(lines[j]);
    break;
  }
  return out;
}

TEST_F(WhatATenantSees, AMissingWorkloadMonitorIsNamedInTheConditionWithAWarningEvent) {
  create_postgres(3);
  set_load(150);
  create_dha({});
  start_operator();
  const std::string cause = "WorkloadMonitor tenant-a/postgres-db not found";
  ASSERT_TRUE(eventually([&] { return has(condition("AbleToScale", "message"), cause); }, 30s))
      << condition("AbleToScale", "message");
  EXPECT_EQ(condition("AbleToScale"), "HealthUnknown");
  ASSERT_TRUE(eventually([&] { return !events("HealthUnknown").empty(); }, 10s));
  EXPECT_TRUE(has(events("HealthUnknown")[0], cause)) << events("HealthUnknown")[0];
  // One event per cause, not one per cycle.
  EXPECT_TRUE(holds_for([&] { return events("HealthUnknown").size() == 1; }, 3s));

  const std::string get = kubectl(*cluster_, "get dha -n tenant-a", "get-health-unknown");
  EXPECT_EQ(reason_column(get), "HealthUnknown") << get;
  EXPECT_TRUE(has(get, "Postgres/db")) << get;
  EXPECT_TRUE(has(get, "/100 (ReadConnections)")) << get;
  const std::string status = kubectl(*cluster_, "dha status db-dha -n tenant-a", "dha-status-health-unknown");
  EXPECT_TRUE(has(status, cause)) << status;
  EXPECT_TRUE(has(status, "Warning")) << status;
  kubectl(*cluster_, "describe dha db-dha -n tenant-a", "describe-health-unknown");
}

TEST_F(WhatATenantSees, MissingSeriesAreNamedByQuery) {
  create_postgres(3);
  create_workload_monitor(3);
  create_dha({});  // no load series at all
  start_operator();
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") == "MetricUnavailable"; }, 30s));
  EXPECT_TRUE(has(condition("AbleToScale", "message"), "query for ReadConnections returned no series"))
      << condition("AbleToScale", "message");
  ASSERT_TRUE(eventually([&] { return !events("MetricUnavailable").empty(); }, 10s));
  const std::string get = kubectl(*cluster_, "get dha -n tenant-a -o wide", "get-wide-metric-unavailable");
  EXPECT_TRUE(has(get, "<unknown>/100 (ReadConnections)")) << get;
}

TEST_F(WhatATenantSees, ASecondDhaWithTheWebhookOffNeverPatches) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(350);
  create_dha({});
  auto_converge(true);
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 5 && marker() == kDha; }, 30s));
  const auto patches_before = target_patches().size();

  // A second DHA on the same database that would scale it down to 2 at once.
  admin_->create(kube::resources::dhas(kNamespace),
                 kube::parse_json(fmt::format(
                     R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                     R"("metadata":{{"name":"second","namespace":"{}"}},)"
                     R"("spec":{{"targetRef":{{"kind":"Postgres","name":"{}"}},"minReplicas":2,"maxReplicas":2,)"
                     R"("metrics":[{{"type":"ReadConnections","target":{{"averageValue":"100"}}}}],)"
                     R"("behavior":{{"immediateFirstDecision":true}}}}}})",
                     kNamespace, kApp)));
  auto second_condition = [&](const char* field) {
    auto d = admin_->get(kube::resources::dhas(kNamespace).named("second"));
    const auto* conds = kube::find_path(d, {"status", "conditions"});
    if (conds == nullptr || !conds->IsArray()) return std::string();
    for (const auto& c : conds->GetArray())
      if (kube::string_at(c, {"type"}) == "AbleToScale") return kube::string_at(c, {field});
    return std::string();
  };
  ASSERT_TRUE(eventually([&] { return second_condition("reason") == "TargetClaimed"; }, 30s))
      << second_condition("message");
  EXPECT_TRUE(has(second_condition("message"), "already scaled by DatabaseHorizontalAutoscaler \"db-dha\""))
      << second_condition("message");
  EXPECT_TRUE(holds_for([&] { return replicas() == 5 && marker() == kDha; }, 4s));
  for (std::size_t i = patches_before; i < target_patches().size(); ++i)
    EXPECT_FALSE(has(target_patches()[i].body, "\"second\"")) << target_patches()[i].body;
  const std::string get = kubectl(*cluster_, "get dha -n tenant-a", "get-target-claimed");
  EXPECT_TRUE(has(get, "TargetClaimed")) << get;
}

TEST_F(WhatATenantSees, ANewDhaWithTheDefaultWindowsDoesNotScaleDownWithinItsDownWindow) {
  create_postgres(4);
  create_workload_monitor(4);
  set_load(50);    // wants 2
  create_dha({});  // down window 600 s
  start_operator();
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") != ""; }, 30s));
  EXPECT_TRUE(holds_for([&] { return replicas() == 4; }, 5s)) << "scaled down inside the down window";
  EXPECT_TRUE(target_patches().empty());
  const auto d = dha();
  const auto* recs = kube::find_path(d, {"status", "recommendations"});
  ASSERT_TRUE(recs != nullptr && recs->IsArray() && recs->Size() >= 1);
  EXPECT_EQ(kube::find_path((*recs)[0], {"replicas"})->GetInt(), 4) << "the first observation starts the window";
  kubectl(*cluster_, "dha why db-dha -n tenant-a", "dha-why-new-dha");

  // The opt-out acts at once: the same DHA, asking for an immediate first decision.
  admin_->remove(kube::resources::dhas(kNamespace).named(kDha));
  ASSERT_TRUE(eventually([&] { return !dha_if_exists(); }, 20s));
  // Created with the opt-out, not patched in afterwards: a reconcile between the create and the
  // patch would seed the history, and the opt-out only applies to a DHA without one.
  create_dha({.immediate_first_decision = true});
  EXPECT_TRUE(eventually([&] { return replicas() == 3; }, 30s)) << "the opt-out did not scale down";
}

TEST_F(WhatATenantSees, ReasonShowsTheOwnershipConflictAboveTheLagBrake) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(350);
  create_dha({});
  auto_converge(true);
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 5; }, 30s));
  auto_converge(false);
  set_lag(60, /*writes=*/true);
  set_replicas_as("tenant", 4);  // another writer
  ASSERT_TRUE(eventually([&] { return condition("ScalingLimited") == "OwnershipConflict"; }, 30s));
  EXPECT_TRUE(eventually([&] { return condition("AbleToScale") == "OwnershipConflict"; }, 10s))
      << condition("AbleToScale") << ": " << condition("AbleToScale", "message");
  const std::string get = kubectl(*cluster_, "get dha -n tenant-a", "get-ownership-conflict");
  // Under it, the lag brake still reads with its numbers in the decision (once a reconcile has
  // read the new lag: the conflict is seen through the target's watch, the lag at the next read).
  EXPECT_TRUE(eventually(
      [&] {
        return has(kube::string_at(dha(), {"status", "summary"}), "60s > 30s");
      },
      20s))
      << kube::string_at(dha(), {"status", "summary"});
  EXPECT_EQ(reason_column(get), "OwnershipConflict") << get;
  kubectl(*cluster_, "dha status db-dha -n tenant-a", "dha-status-ownership-conflict");
  EXPECT_TRUE(has(kubectl(*cluster_, "dha history db-dha -n tenant-a", "dha-history-ownership-conflict"),
                  "scaled Postgres/db replicas 4 -> 5; reason: ReadConnections"));
  kubectl(*cluster_, "describe dha db-dha -n tenant-a", "describe-ownership-conflict");
}

// averageUtilization is a percentage of the read replicas' CPU request (t1.micro: 500m), as the
// HPA reads it. 200m over 2 read replicas is 100m each = 20% of the request: below the 70%
// target. Read as millicores (100 against "70") it would have scaled up.
TEST_F(WhatATenantSees, AverageUtilizationIsAPercentageOfTheCpuRequest) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(0);  // the pod labels that tell the read replicas
  const auto now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  vm_->import_prometheus(
      fmt::format("container_cpu_usage_seconds_total{{namespace=\"{0}\",pod=\"db-2\",container=\"postgres\"}} 0 {1}\n"
                  "container_cpu_usage_seconds_total{{namespace=\"{0}\",pod=\"db-2\",container=\"postgres\"}} 12 {2}\n",
                  kNamespace, now - 60000, now));
  admin_->create(kube::resources::dhas(kNamespace),
                 kube::parse_json(fmt::format(
                     R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                     R"("metadata":{{"name":"{}","namespace":"{}"}},)"
                     R"("spec":{{"targetRef":{{"kind":"Postgres","name":"{}"}},"minReplicas":2,"maxReplicas":6,)"
                     R"("metrics":[{{"type":"ReadCPUUtilization","target":{{"averageUtilization":70}}}}],)"
                     R"("behavior":{{"scaleUp":{{"stabilizationWindowSeconds":0}}}}}}}})",
                     kDha, kNamespace, kApp)));
  start_operator();
  ASSERT_TRUE(eventually(
      [&] {
        return has(kube::string_at(dha(), {"status", "metricsDisplay"}), "%/70%");
      },
      30s))
      << kube::string_at(dha(), {"status", "metricsDisplay"}) << " " << condition("AbleToScale", "message");
  const std::string shown = kube::string_at(dha(), {"status", "metricsDisplay"});
  EXPECT_TRUE(has(shown, "20%/70% (ReadCPUUtilization)") || has(shown, "19%/70%") || has(shown, "21%/70%")) << shown;
  EXPECT_TRUE(holds_for([&] { return replicas() == 3; }, 4s)) << "millicores compared with a percentage";
  kubectl(*cluster_, "get dha -n tenant-a", "get-utilization");
}

// One metric that cannot be read freezes the DHA (it does not scale on part of the load), but the
// METRICS column still shows each metric on its own: the failed one <unknown>, the other with the
// 40/100 it read. Before, the frozen decision's empty metrics blanked both.
TEST_F(WhatATenantSees, OneFailedMetricLeavesTheOthersReadingInTheMetricsColumn) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(80);  // 80 connections over 2 read replicas: 40 each; no CPU series at all
  admin_->create(kube::resources::dhas(kNamespace),
                 kube::parse_json(fmt::format(
                     R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                     R"("metadata":{{"name":"{}","namespace":"{}"}},)"
                     R"("spec":{{"targetRef":{{"kind":"Postgres","name":"{}"}},"minReplicas":2,"maxReplicas":6,)"
                     R"("metrics":[{{"type":"ReadConnections","target":{{"averageValue":"100"}}}},)"
                     R"({{"type":"ReadCPUUtilization","target":{{"averageUtilization":70}}}}]}}}})",
                     kDha, kNamespace, kApp)));
  start_operator();
  ASSERT_TRUE(eventually([&] { return condition("AbleToScale") == "MetricUnavailable"; }, 30s))
      << condition("AbleToScale") << ": " << condition("AbleToScale", "message");
  EXPECT_TRUE(has(condition("AbleToScale", "message"), "ReadCPUUtilization")) << condition("AbleToScale", "message");
  EXPECT_EQ(kube::string_at(dha(), {"status", "metricsDisplay"}),
            "40/100 (ReadConnections), <unknown>/70% (ReadCPUUtilization)");
  const std::string get = kubectl(*cluster_, "get dha -n tenant-a", "get-one-metric-unavailable");
  EXPECT_TRUE(has(get, "40/100 (ReadConnections), <unknown>/70% (ReadCPUUtilization)")) << get;
  EXPECT_EQ(reason_column(get), "MetricUnavailable") << get;
  const std::string status = kubectl(*cluster_, "dha status db-dha -n tenant-a", "dha-status-one-metric-unavailable");
  EXPECT_TRUE(has(status, "Metrics:     40/100 (ReadConnections), <unknown>/70% (ReadCPUUtilization)\n")) << status;
}

// kubectl describe prints every status field. With one object per gate (five lines each) and one
// recommendation per cycle, a settled DHA took over 150 lines before its Events; the gate trace
// is one line per gate now and only the recommendations a window can still need are kept.
TEST_F(WhatATenantSees, DescribeShowsOneLinePerGateAndNoRecommendationDump) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(350);  // 4 read replicas + the primary
  create_dha({});
  auto_converge(true);
  start_operator();
  ASSERT_TRUE(eventually([&] { return replicas() == 5; }, 30s)) << "no scale to 5";
  // Converged and settled: the last decision went through every gate.
  ASSERT_TRUE(
      eventually([&] { return status_int("currentReplicas") == 5 && condition("AbleToScale") == "Ready"; }, 30s));
  ASSERT_TRUE(eventually(
      [&] {
        return kube::string_at(dha(), {"status", "lastDecision", "kind"}) == "NoChange";
      },
      30s));
  // Some cycles more, each of which used to add a recommendation.
  std::this_thread::sleep_for(3s);

  const std::string describe = kubectl(*cluster_, "describe dha db-dha -n tenant-a", "describe-settled");
  const auto lines = lines_of(describe);
  const auto events_at =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("Events:", 0) == 0; });
  const auto status_at = std::find(lines.begin(), lines.end(), "Status:");
  ASSERT_TRUE(events_at != lines.end() && status_at != lines.end()) << describe;
  // Metadata and spec (39 lines, with the policy the CRD defaults to) are the tenant's. Status,
  // 59 lines when measured: 19 of conditions, the counts and displays, two recommendations, the
  // decision with a line per gate. Before, the same DHA's status took over 110 lines.
  EXPECT_LE(events_at - status_at, 63) << describe;
  EXPECT_LE(events_at - lines.begin(), 102) << describe;

  const auto gates = section(lines, "Gates");
  const std::regex gate_line(R"(^ +[A-Za-z]+: [0-9]+ -> [0-9]+, [A-Za-z]+(: .+)?$)");
  for (const auto& line : gates) EXPECT_TRUE(std::regex_match(line, gate_line)) << line;
  // A new DHA decides with the Adaptive policy (the CRD's default), whose own line comes first.
  const std::vector<std::string> chain{"Adaptive",  "FailSafe", "QuorumVsQuota", "Convergence", "Health",    "LagBrake",
                                       "Ownership", "Backoff",  "Stabilization", "Bounds",      "StepLimit", "DryRun"};
  EXPECT_EQ(gates.size(), chain.size()) << describe;
  for (const auto& gate : chain) {
    const auto at =
        std::find_if(gates.begin(), gates.end(), [&](const std::string& l) { return has(l, " " + gate + ": "); });
    EXPECT_TRUE(at != gates.end()) << gate << " has no line in:\n" << describe;
  }
  // The numbers the gates saw, on their line.
  EXPECT_TRUE(std::any_of(gates.begin(), gates.end(), [](const std::string& l) {
    return has(l, "FailSafe: 5 -> 5, Pass: raw recommendation 5 from ReadConnections 87.5/100 per read replica");
  })) << describe;
  EXPECT_FALSE(has(describe, "Trace:")) << describe;
  EXPECT_FALSE(has(describe, "      In: ")) << describe;
  // The seed at 3 (the first observation) and the newest at 5: a window needs no more.
  EXPECT_LE(section(lines, "Recommendations").size(), 4u) << describe;

  // The full trace stays available: kubectl dha why reads it from the lines.
  const std::string why = kubectl(*cluster_, "dha why db-dha -n tenant-a", "dha-why-settled");
  for (const auto& gate : chain) EXPECT_TRUE(has(why, gate + ": passed 5")) << gate << " missing from:\n" << why;
  kubectl(*cluster_, "get dha -n tenant-a", "get-settled");
  kubectl(*cluster_, "dha status db-dha -n tenant-a", "dha-status-settled");
}

// An HPA whose target is gone shows <unknown>; so does a DHA, instead of the last count it saw.
TEST_F(WhatATenantSees, CurrentAndDesiredAreUnknownOnceTheTargetIsDeleted) {
  create_postgres(3);
  create_workload_monitor(3);
  set_load(150);
  create_dha({});
  start_operator();
  ASSERT_TRUE(eventually([&] { return status_int("currentReplicas") == 3 && condition("AbleToScale") != ""; }, 30s));
  const std::string before = kubectl(*cluster_, "get dha -n tenant-a");
  EXPECT_EQ(column(before, "CURRENT"), "3") << before;

  admin_->remove(kube::ResourceRef{"apps.cozystack.io", "v1alpha1", "postgreses", kNamespace, kApp});
  ASSERT_TRUE(eventually([&] { return condition("ScalingActive") != "Ready"; }, 30s));
  ASSERT_TRUE(eventually([&] { return status_int("currentReplicas") == -1; }, 10s)) << kube::to_json(dha());
  const std::string get = kubectl(*cluster_, "get dha -n tenant-a", "get-target-deleted");
  EXPECT_EQ(column(get, "CURRENT"), "<unknown>") << get;
  EXPECT_EQ(column(get, "DESIRED"), "<unknown>") << get;
  EXPECT_TRUE(has(get, "<unknown>/100 (ReadConnections)")) << get;
  const std::string status = kubectl(*cluster_, "dha status db-dha -n tenant-a", "dha-status-target-deleted");
  EXPECT_TRUE(has(status, "Replicas:    current <unknown>, desired <unknown>")) << status;
  kubectl(*cluster_, "describe dha db-dha -n tenant-a", "describe-target-deleted");
}

// A DHA whose target never existed never observed a count: <unknown>, not 0.
TEST_F(WhatATenantSees, ADhaThatNeverObservedShowsUnknownNotZero) {
  create_dha({});
  start_operator();
  ASSERT_TRUE(eventually([&] { return condition("ScalingActive") != ""; }, 30s));
  EXPECT_EQ(status_int("currentReplicas"), -1) << kube::to_json(dha());
  const std::string get = kubectl(*cluster_, "get dha -n tenant-a");
  EXPECT_EQ(column(get, "CURRENT"), "<unknown>") << get;
  EXPECT_EQ(column(get, "DESIRED"), "<unknown>") << get;
}

}  // namespace
}  // namespace dha::optest
