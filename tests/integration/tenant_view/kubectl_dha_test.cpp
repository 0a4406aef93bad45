// The kubectl plugin against what the real operator wrote: `kubectl dha status|why|history`,
// found by kubectl on PATH as kubectl-dha (the link installed next to db-autoscaler).
#include <array>
#include <cstdio>
#include <filesystem>
#include <sys/wait.h>

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
  explicit Plugin(const testing::TestCluster& cluster) : kubeconfig_(cluster.kubeconfig("admin")) {}
  CommandResult kubectl(const std::string& args) const {
    const std::string bin_dir = std::filesystem::path(DHA_BINARY).parent_path().string();
    const std::string command = "PATH=" + bin_dir + ":$PATH KUBECONFIG=" + kubeconfig_ + " kubectl " + args + " 2>&1";
    CommandResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buf;
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) result.output += buf.data();
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
  }

 private:
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
  ASSERT_TRUE(eventually([&] { return status_int("currentReplicas") == 5 && condition("AbleToScale") == "Ready"; }, 30s));

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

}  // namespace
}  // namespace dha::optest
