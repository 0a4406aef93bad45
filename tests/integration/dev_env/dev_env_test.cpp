// dha-dev-env as a plugin author runs it from the installed SDK: it brings up the API server,
// VictoriaMetrics, the world simulator and the real operator with a plugin, says what to apply,
// the operator then scales the engine, and every process it started is gone after SIGTERM,
// SIGINT, --duration or --stop. Bad input fails before anything is left running.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dha/testing/child_process.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "dha/testing/world/kube_rest.hpp"

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// An SDK install as `cmake --install` lays it out, made of the build tree's binaries: the script
// finds its siblings next to itself and metrics-vm and the CRDs under the same prefix.
class InstalledSdk {
 public:
  explicit InstalledSdk(bool with_operator = true) : prefix_(dha::testing::make_temp_dir("dha-dev-env-sdk")) {
    const fs::path bin = prefix_ / "bin", plugins = prefix_ / DHA_INSTALL_LIBDIR / "dha-sdk" / "plugins",
                   crds = prefix_ / DHA_INSTALL_DATADIR / "dha-sdk" / "crds";
    for (const auto& d : {bin, plugins, crds}) fs::create_directories(d);
    fs::copy_file(DHA_DEV_ENV, bin / "dha-dev-env");  // a copy: the script resolves its own path
    fs::create_symlink(DHA_APISERVER, bin / "dha-apiserver");
    fs::create_symlink(DHA_WORLD_SIM, bin / "dha-world-sim");
    if (with_operator) fs::create_symlink(DHA_OPERATOR, bin / "db-autoscaler");
    fs::create_symlink(DHA_METRICS_VM, plugins / "metrics-vm.so");
    for (const char* dir : {DHA_SOURCE_DIR "/sdk/testing/crds", DHA_SOURCE_DIR "/charts/db-autoscaler/crds"})
      for (const auto& crd : fs::directory_iterator(dir)) fs::copy_file(crd.path(), crds / crd.path().filename());
  }
  ~InstalledSdk() { fs::remove_all(prefix_); }
  std::string dev_env() const { return (prefix_ / "bin" / "dha-dev-env").string(); }

 private:
  fs::path prefix_;
};

// dha-dev-env as a child of the test: its own process group, killed if the test dies.
class DevEnv {
 public:
  DevEnv(const std::vector<std::string>& argv, const fs::path& log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      std::freopen(log.c_str(), "w", stdout);
      ::dup2(STDOUT_FILENO, STDERR_FILENO);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
  }
  ~DevEnv() {
    if (pid_ > 0 && exit_code_ < 0) {
      ::kill(pid_, SIGTERM);
      wait(60s);
    }
  }
  pid_t pid() const { return pid_; }
  // The exit code (128 + signal for a signal), or -1 if it is still running after `timeout`.
  int wait(std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (exit_code_ < 0) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_)
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      else if (std::chrono::steady_clock::now() >= deadline)
        break;
      else
        std::this_thread::sleep_for(100ms);
    }
    return exit_code_;
  }

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

// Processes whose command line mentions `needle` (every process dha-dev-env starts names its work
// directory: kubeconfig, data directory, plugin configuration).
std::vector<std::string> processes_mentioning(const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == ::getpid()) continue;
    std::string cmdline = read_text(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    const std::string stat = read_text(entry.path() / "stat");
    const bool zombie = stat.find(") Z ") != std::string::npos;
    if (!zombie && cmdline.find(needle) != std::string::npos) out.push_back(name + ": " + cmdline);
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

class DevEnvTest : public ::testing::Test {
 protected:
  void SetUp() override {
    work_ = dha::testing::make_temp_dir("dha-dev-env-test");
    dir_ = work_ / "env";
  }
  void TearDown() override {
    EXPECT_EQ(joined(processes_mentioning(dir_.string())), "") << "left running";
    fs::remove_all(work_);
  }

  // The Postgres plugin of the build with the built-in Postgres engine: what an author's plugin
  // directory and engine description stand in for here.
  std::vector<std::string> args(std::vector<std::string> extra = {}) const {
    std::vector<std::string> a{
        sdk_.dev_env(), "--plugin-dir", DHA_POSTGRES_PLUGIN_DIR, "--plugins",           "postgres", "--load",
        load(),         "--dir",        dir_.string(),           "--provision-seconds", "1"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  std::string load() const {
    const fs::path curve = work_ / "load.csv";
    if (!fs::exists(curve)) std::ofstream(curve) << "time,ReadConnections,lagSeconds\n0,250,0.5\n";
    return curve.string();
  }
  std::string log() const { return read_text(work_ / "dev-env.log"); }

  // Waits for the environment to say it is ready; false (with the log) if it does not.
  ::testing::AssertionResult ready(DevEnv& env) {
    const auto deadline = std::chrono::steady_clock::now() + 180s;
    while (std::chrono::steady_clock::now() < deadline) {
      if (fs::exists(dir_ / "ready")) return ::testing::AssertionSuccess();
      if (env.wait(0s) >= 0) return ::testing::AssertionFailure() << "exited early:\n" << log();
      std::this_thread::sleep_for(200ms);
    }
    return ::testing::AssertionFailure() << "not ready within 180 s:\n" << log();
  }
  std::vector<std::string> children() const {
    std::vector<std::string> out;
    std::istringstream lines(read_text(dir_ / "children"));
    for (std::string line; std::getline(lines, line);) out.push_back(line);
    return out;
  }

  InstalledSdk sdk_;
  fs::path work_, dir_;
};

TEST_F(DevEnvTest, RunsTheOperatorWithThePluginUntilSigterm) {
  DevEnv env(args({"--example", DHA_SOURCE_DIR "/examples/demo/postgres.yaml"}), work_ / "dev-env.log");
  ASSERT_TRUE(ready(env));
  const std::string out = log();
  EXPECT_NE(out.find("export KUBECONFIG=" + (dir_ / "kubeconfig").string()), std::string::npos) << out;
  EXPECT_NE(out.find("kubectl apply -f " DHA_SOURCE_DIR "/examples/demo/postgres.yaml"), std::string::npos) << out;
  EXPECT_NE(out.find("db-autoscaler    run --plugins postgres,metrics-vm"), std::string::npos) << out;
  const auto started = children();
  ASSERT_EQ(started.size(), 4u) << joined(started);
  for (const char* name : {"dha-apiserver ", "victoria-metrics ", "dha-world-sim ", "db-autoscaler "})
    EXPECT_NE(joined(started).find(name), std::string::npos) << name;

  // What the author then applies: an engine object and its DHA. With 250 connections against 100
  // per read replica the real operator scales the 2 instances up.
  dha::testing::world::KubeRest kube(dha::testing::world::KubeEndpoint::from_kubeconfig(dir_ / "kubeconfig"));
  ASSERT_EQ(
      kube.create("/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"demo"}})").status,
      201);
  ASSERT_EQ(kube.create("/apis/apps.cozystack.io/v1alpha1/namespaces/demo/postgreses",
                        R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres",
                            "metadata":{"name":"db","namespace":"demo"},"spec":{"replicas":2}})")
                .status,
            201);
  const auto dha = kube.create("/apis/autoscaling.cozystack.io/v1alpha1/namespaces/demo/databasehorizontalautoscalers",
                               R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1",
                                   "kind":"DatabaseHorizontalAutoscaler","metadata":{"name":"db","namespace":"demo"},
                                   "spec":{"targetRef":{"apiGroup":"apps.cozystack.io","kind":"Postgres","name":"db"},
                                           "minReplicas":2,"maxReplicas":5,
                                           "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],
                                           "behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"step":1},
                                                       "scaleDown":{"stabilizationWindowSeconds":600,"step":1}}}})");
  ASSERT_EQ(dha.status, 201) << dha.body;
  int replicas = 2;
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (replicas == 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(500ms);
    rapidjson::Document d;
    d.Parse(kube.get("/apis/apps.cozystack.io/v1alpha1/namespaces/demo/postgreses/db").body.c_str());
    if (!d.HasParseError() && d.IsObject() && d.HasMember("spec") && d["spec"].HasMember("replicas"))
      replicas = d["spec"]["replicas"].GetInt();
  }
  EXPECT_GT(replicas, 2) << read_text(dir_ / "db-autoscaler.log");

  ASSERT_EQ(::kill(env.pid(), SIGTERM), 0);
  EXPECT_EQ(env.wait(60s), 143) << log();
  EXPECT_FALSE(fs::exists(dir_ / "ready"));
  EXPECT_NE(log().find("dha-dev-env: stopped"), std::string::npos) << log();
}

TEST_F(DevEnvTest, SigintStopsEverything) {
  DevEnv env(args(), work_ / "dev-env.log");
  ASSERT_TRUE(ready(env));
  EXPECT_EQ(children().size(), 4u);
  ASSERT_EQ(::kill(env.pid(), SIGINT), 0);
  EXPECT_EQ(env.wait(60s), 130) << log();
}

TEST_F(DevEnvTest, DurationBoundsTheRun) {
  DevEnv env(args({"--duration", "2"}), work_ / "dev-env.log");
  ASSERT_TRUE(ready(env));
  EXPECT_EQ(env.wait(60s), 0) << log();
  EXPECT_NE(log().find("2 s from now (--duration)"), std::string::npos) << log();
}

TEST_F(DevEnvTest, DetachReturnsOnceUpAndStopEndsIt) {
  DevEnv detach(args({"--detach"}), work_ / "dev-env.log");
  EXPECT_EQ(detach.wait(180s), 0) << log();
  EXPECT_NE(log().find("dha-dev-env: ready"), std::string::npos) << log();
  EXPECT_NE(log().find("stop it with: dha-dev-env --stop --dir " + dir_.string()), std::string::npos) << log();
  EXPECT_FALSE(processes_mentioning(dir_.string()).empty()) << "the environment runs on after --detach returned";

  DevEnv again(args(), work_ / "again.log");
  EXPECT_EQ(again.wait(60s), 1);
  EXPECT_NE(read_text(work_ / "again.log").find("an environment is already running in " + dir_.string()),
            std::string::npos)
      << read_text(work_ / "again.log");

  DevEnv stop({sdk_.dev_env(), "--stop", "--dir", dir_.string()}, work_ / "stop.log");
  EXPECT_EQ(stop.wait(90s), 0) << read_text(work_ / "stop.log");
  EXPECT_NE(read_text(work_ / "stop.log").find("stopped the environment in " + dir_.string()), std::string::npos);
}

// An outside vendor's engine adapter, actuator, gate and metric source, from their build directory
// and an installed SDK, each with its own configuration: the operator loads exactly those (its own
// metric source in place of metrics-vm), scales spec.topology.nodes, and the simulator keeps the
// status fields the engine description names.
TEST_F(DevEnvTest, RunsAVendorsEngineActuatorGateAndMetricSourceEachWithItsOwnConfig) {
  const std::string vendor = DHA_SOURCE_DIR "/tests/integration/keydb_vendor";
  DevEnv env({sdk_.dev_env(),
              "--plugin-dir",
              KEYDB_VENDOR_PLUGIN_DIR,
              "--plugins",
              "keydb,keydb-nodes,keydb-write-burst",
              "--metrics-plugin",
              KEYDB_VENDOR_PLUGIN_DIR "/orgid-metrics.so",
              "--engine",
              vendor + "/dev/keydb.engine.yaml",
              "--crds",
              vendor + "/crds",
              "--dir",
              dir_.string(),
              "--provision-seconds",
              "1",
              "--config",
              "keydb=" + vendor + "/dev/keydb.json",
              "--config",
              "keydb-nodes=" + vendor + "/dev/keydb-nodes.json",
              "--config",
              "keydb-write-burst=" + vendor + "/dev/keydb-write-burst.json",
              "--config",
              "orgid-metrics=" + vendor + "/dev/orgid-metrics.json"},
             work_ / "dev-env.log");
  ASSERT_TRUE(ready(env));
  const std::string out = log();
  EXPECT_NE(out.find("run --plugins keydb,keydb-nodes,keydb-write-burst,orgid-metrics"), std::string::npos) << out;
  for (const char* id : {"keydb ", "keydb-nodes ", "keydb-write-burst ", "orgid-metrics "})
    EXPECT_NE(out.find(std::string("    ") + id + "0."), std::string::npos) << id << " is listed as loaded:\n" << out;
  EXPECT_EQ(out.find("metrics-vm"), std::string::npos) << "the vendor's source replaces metrics-vm:\n" << out;
  // Each plugin's own section, and the store's URL where the source's configuration asked for it.
  rapidjson::Document config;
  config.Parse(read_text(dir_ / "plugins.json").c_str());
  ASSERT_TRUE(config.IsObject()) << read_text(dir_ / "plugins.json");
  EXPECT_EQ(config["keydb"]["minNodes"].GetInt(), 2);
  EXPECT_STREQ(config["keydb-nodes"]["drainField"].GetString(), "drainFirst");
  EXPECT_EQ(config["keydb-write-burst"]["maxWriteRate"].GetInt(), 500);
  const std::string source_url = read_text(dir_ / "plugins.json");
  EXPECT_NE(source_url.find(R"("orgId": "${namespace}")"), std::string::npos)
      << "the source's own placeholders are its own";
  EXPECT_EQ(source_url.find("${metricsUrl}"), std::string::npos) << source_url;

  dha::testing::world::KubeRest kube(dha::testing::world::KubeEndpoint::from_kubeconfig(dir_ / "kubeconfig"));
  ASSERT_EQ(
      kube.create("/api/v1/namespaces", R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"kv"}})").status,
      201);
  ASSERT_EQ(
      kube.create("/apis/db.example.com/v1/namespaces/kv/keydbs",
                  R"({"apiVersion":"db.example.com/v1","kind":"KeyDB","metadata":{"name":"orders","namespace":"kv"},
                            "spec":{"topology":{"nodes":3}}})")
          .status,
      201);
  const auto dha = kube.create("/apis/autoscaling.cozystack.io/v1alpha1/namespaces/kv/databasehorizontalautoscalers",
                               R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1",
                                   "kind":"DatabaseHorizontalAutoscaler","metadata":{"name":"orders","namespace":"kv"},
                                   "spec":{"targetRef":{"apiGroup":"db.example.com","kind":"KeyDB","name":"orders"},
                                           "minReplicas":2,"maxReplicas":6,
                                           "metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],
                                           "behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"step":1},
                                                       "scaleDown":{"stabilizationWindowSeconds":600,"step":1}}}})");
  ASSERT_EQ(dha.status, 201) << dha.body;
  // 250 clients against 100 per read node: 3 read nodes and the primary.
  int nodes = 3, ready_nodes = 0;
  const auto deadline = std::chrono::steady_clock::now() + 150s;
  while ((nodes < 4 || ready_nodes < 4) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(500ms);
    rapidjson::Document d;
    d.Parse(kube.get("/apis/db.example.com/v1/namespaces/kv/keydbs/orders").body.c_str());
    if (d.HasParseError() || !d.IsObject()) continue;
    if (const auto* n = rapidjson::Pointer("/spec/topology/nodes").Get(d); n != nullptr && n->IsInt())
      nodes = n->GetInt();
    if (const auto* r = rapidjson::Pointer("/status/readyNodes").Get(d); r != nullptr && r->IsInt())
      ready_nodes = r->GetInt();
  }
  EXPECT_EQ(nodes, 4) << read_text(dir_ / "db-autoscaler.log");
  EXPECT_EQ(ready_nodes, 4) << "the simulator keeps the status field the description names\n"
                            << read_text(dir_ / "dha-world-sim.log");
  ASSERT_EQ(::kill(env.pid(), SIGTERM), 0);
  EXPECT_EQ(env.wait(60s), 143) << log();
}

// A loopback port with a listener on it, for the port-in-use case.
class Listener {
 public:
  Listener() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof a;
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), size);
    ::listen(fd_, 4);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &size);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }

 private:
  int fd_;
  int port_ = 0;
};

struct Failure {
  std::string out;
  int code;
};

// Its API server serves anyone on the machine as admin: --help says so before anything starts.
TEST_F(DevEnvTest, HelpSaysTheApiServerIsAnAnonymousAdmin) {
  DevEnv env({sdk_.dev_env(), "--help"}, work_ / "help.log");
  EXPECT_EQ(env.wait(30s), 0);
  const std::string help = read_text(work_ / "help.log");
  EXPECT_NE(help.find("authenticates nobody"), std::string::npos) << help;
  EXPECT_NE(help.find("anonymous cluster admin"), std::string::npos) << help;
}

TEST_F(DevEnvTest, BadInputIsAClearErrorAndLeavesNothingRunning) {
  const auto fails = [&](std::vector<std::string> argv) {
    DevEnv env(argv, work_ / "fail.log");
    const int code = env.wait(120s);
    return Failure{read_text(work_ / "fail.log"), code};
  };
  Listener busy;
  const fs::path empty_dir = work_ / "empty";
  fs::create_directories(empty_dir);
  const fs::path bad_engine = work_ / "engine.yaml";
  std::ofstream(bad_engine) << "kind: KeyDB\ngroup: kv.example.com\nversion: v1\nplural: keydbs\n";
  struct Case {
    std::vector<std::string> argv;
    std::string message;
    int code;
  };
  const std::vector<Case> cases{
      {{sdk_.dev_env(), "--plugin-dir"}, "--plugin-dir needs a value", 2},
      {{sdk_.dev_env(), "--bogus"}, "unknown argument --bogus", 2},
      {{sdk_.dev_env(), "--load", load()}, "--plugin-dir is required", 2},
      {args({"--plugin-dir", "/nonexistent"}), "plugin directory /nonexistent does not exist", 1},
      {{sdk_.dev_env(), "--plugin-dir", empty_dir.string(), "--load", load(), "--dir", dir_.string()},
       "no plugin (*.so) in " + empty_dir.string(),
       1},
      {args({"--plugins", "acmedb"}), "plugin acmedb: no acmedb.so in", 1},
      {args({"--plugin-dir", DHA_POSTGRES_PLUGIN_DIR}), "the operator would load only the first", 1},
      {args({"--config", "postgres"}), "--config wants NAME=FILE", 2},
      {args({"--config", "postgres=/nonexistent.json"}),
       "--config postgres=/nonexistent.json: /nonexistent.json does not exist", 1},
      {args({"--metrics-plugin", "/nonexistent.so"}), "--metrics-plugin /nonexistent.so: not a .so file", 1},
      {args({"--vm-port", std::to_string(busy.port())}),
       "port " + std::to_string(busy.port()) + " on 127.0.0.1 is in use", 1},
      {args({"--engine", "/nonexistent.yaml"}), "engine description /nonexistent.yaml does not exist", 1},
      // Found by the simulator once the servers are up: they are stopped again.
      {args({"--engine", bad_engine.string()}), "series: is required", 1},
  };
  for (const auto& c : cases) {
    const auto r = fails(c.argv);
    EXPECT_EQ(r.code, c.code) << c.message << "\n" << r.out;
    EXPECT_NE(r.out.find(c.message), std::string::npos) << r.out;
    EXPECT_EQ(joined(processes_mentioning(dir_.string())), "") << c.message;
  }

  InstalledSdk without_operator(false);
  DevEnv env({"/usr/bin/env", "PATH=/usr/bin:/bin", without_operator.dev_env(), "--plugin-dir", DHA_POSTGRES_PLUGIN_DIR,
              "--load", load(), "--dir", dir_.string()},
             work_ / "fail.log");
  EXPECT_EQ(env.wait(60s), 1);
  EXPECT_NE(read_text(work_ / "fail.log").find("db-autoscaler not found next to"), std::string::npos)
      << read_text(work_ / "fail.log");
}

}  // namespace
