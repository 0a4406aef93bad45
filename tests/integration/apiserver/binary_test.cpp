// The dha-apiserver binary as the chart tests and plugin authors run it: flags, the token
// file, the kubeconfig it writes, and a clean exit on SIGTERM.

#include "test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>

extern char** environ;

namespace dha::testing::test {
namespace {

class BinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(DHA_APISERVER_BIN)) << "build the dha-apiserver target";
    dir = make_temp_dir();
  }
  void TearDown() override {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    std::filesystem::remove_all(dir);
  }

  // Starts the binary; returns once the kubeconfig exists (or the process died).
  void start(std::vector<std::string> args) {
    args.insert(args.begin(), DHA_APISERVER_BIN);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    std::string log = dir + "/log";
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; i < 100 && !std::filesystem::exists(dir + "/kc"); ++i) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  CommandResult kubectl(const std::string& args) {
    return run_command("HOME=" + dir + " /usr/bin/kubectl --kubeconfig " + dir + "/kc --cache-dir " + dir + "/cache " +
                       args);
  }

  std::string dir;
  pid_t pid = -1;
  int status = 0;
};

TEST_F(BinaryTest, ServesTokensFromTheFileAndStopsOnSigterm) {
  write_file(dir + "/tokens.csv",
             "# "
             "token,user,uid,groups\nop-token,system:serviceaccount:cozy-db-autoscaler:db-autoscaler,1,\"system:"
             "serviceaccounts,system:serviceaccounts:cozy-db-autoscaler\"\ntenant-token,tenant-a,2\n");
  start({"--listen", "127.0.0.1:0", "--kubeconfig-out", dir + "/kc", "--tls", "--tokens", dir + "/tokens.csv",
         "--kubeconfig-token", "op-token", "--crds", fixture_crds_dir()});
  ASSERT_GT(pid, 0) << read_file(dir + "/log");
  EXPECT_NE(read_file(dir + "/log").find("dha-apiserver listening on https://127.0.0.1:"), std::string::npos);
  auto get = kubectl("get postgreses");
  EXPECT_EQ(get.exit_code, 0) << get.output;
  auto tenant = kubectl("--token tenant-token get postgreses");
  EXPECT_EQ(tenant.exit_code, 0) << tenant.output;
  auto unknown = kubectl("--token nope get postgreses");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.output.find("Unauthorized"), std::string::npos) << unknown.output;

  ASSERT_EQ(kill(pid, SIGTERM), 0);
  for (int i = 0; i < 100 && waitpid(pid, &status, WNOHANG) != pid; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(WIFEXITED(status)) << "still running 5 s after SIGTERM";
  EXPECT_EQ(WEXITSTATUS(status), 0);
  pid = -1;
}

TEST_F(BinaryTest, BadInputsExitWithAClearMessage) {
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* message;
  };
  write_file(dir + "/bad-tokens.csv", "only-a-token\n");
  write_file(dir + "/bad-crd.yaml",
             "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x}\nspec: {}\n");
  std::vector<Case> cases = {
      {"BadTokenLine", {"--tokens", dir + "/bad-tokens.csv"}, "token file line 1"},
      {"BadListen", {"--listen", "127.0.0.1:notaport"}, "--listen must be HOST:PORT"},
      {"MissingCrdPath", {"--crds", dir + "/absent"}, "CRD path does not exist"},
      {"InvalidCrd", {"--crds", dir + "/bad-crd.yaml"}, "cannot register CRD"},
  };
  for (auto& c : cases) {
    c.args.insert(c.args.end(), {"--kubeconfig-out", dir + "/kc"});
    start(c.args);
    EXPECT_EQ(pid, -1) << c.name << ": should have exited";
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << c.name;
    EXPECT_NE(read_file(dir + "/log").find(c.message), std::string::npos) << c.name << ": " << read_file(dir + "/log");
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      pid = -1;
    }
  }
}

}  // namespace
}  // namespace dha::testing::test
