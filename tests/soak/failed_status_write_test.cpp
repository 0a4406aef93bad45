// Regression for the soak's first finding: the operator patched replicas, then its status write
// failed, and the applied count was forgotten (state lives in status). The operator then treated
// the count as nobody's, so when a tenant set the old count back it scaled over them: a write
// war, which docs/behaviour.md#guardrail-ownership forbids. Deterministic: the fault is aimed at
// the status write that follows the patch.
//
// DHA_OPERATOR_BINARY overrides the operator under test (to show an older build fails);
// DHA_SHOW_OPERATOR_LOG=1 prints the operator's log even when the test passes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/child_process.hpp"
#include "soak_world.hpp"

namespace dha::soak {
namespace {

using namespace std::chrono_literals;

const kube::ResourceRef kPg{"apps.cozystack.io", "v1alpha1", "postgreses", "tenant-a", "db"};
const kube::ResourceRef kMonitor{"cozystack.io", "v1alpha1", "workloadmonitors", "tenant-a", "postgres-db"};
const kube::ResourceRef kDha = kube::resources::dhas("tenant-a").named("db-dha");
constexpr const char* kOperator = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler";

bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      if (done()) return true;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

class FailedStatusWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("dha-soak-regression");
    testing::ApiServerOptions o;
    o.tokens["admin"] = {"admin", {"system:masters"}, ""};
    o.tokens["tenant"] = {"tenant-user", {"system:authenticated"}, ""};
    o.tokens["operator"] = {kOperator, {"system:serviceaccounts"}, ""};
    o.crd_dirs = {std::string(DHA_SOURCE_DIR) + "/sdk/testing/crds",
                  std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
    api_ = std::make_unique<testing::ApiServer>(o);
    api_->start();
    vm_ = std::make_unique<VmServer>(dir_, 10s);
    vm_->start();
    admin_ = client("admin");
    admin_->create(kube::resources::namespaces(),
                   kube::parse_json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"tenant-a"}})"));
    admin_->create(kPg.collection(), kube::parse_json(R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres",)"
                                                      R"("metadata":{"name":"db"},"spec":{"replicas":2}})"));
    admin_->create(
        kMonitor.collection(),
        kube::parse_json(R"({"apiVersion":"cozystack.io/v1alpha1","kind":"WorkloadMonitor",)"
                         R"("metadata":{"name":"postgres-db"},"spec":{"kind":"postgres","type":"postgres"}})"));
    set_available(2);
    set_load(100);  // ceil(100/100) read replicas + the primary = 2 = current: nothing to do yet
    pusher_ = std::thread([this] {
      while (!stop_) {
        set_load(load_);
        std::this_thread::sleep_for(500ms);
      }
    });
    admin_->create(
        kDha.collection(),
        kube::parse_json(R"({"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                         R"("metadata":{"name":"db-dha"},"spec":{"targetRef":{"apiGroup":"apps.cozystack.io",)"
                         R"("kind":"Postgres","name":"db"},"minReplicas":2,"maxReplicas":5,)"
                         R"("metrics":[{"type":"ReadConnections","target":{"averageValue":"100"}}],)"
                         R"("behavior":{"policy":"Windowed","scaleUp":{"stabilizationWindowSeconds":0},)"
                         R"("scaleDown":{"stabilizationWindowSeconds":600}}}})"));
    std::ofstream(dir_ + "/plugin-config.json")
        << R"({"metrics-vm": {"url": ")" << vm_->url() << R"(", "timeoutSeconds": 2}})";
    const char* override_binary = std::getenv("DHA_OPERATOR_BINARY");
    std::vector<std::string> args{override_binary != nullptr ? override_binary : DHA_BINARY, "run"};
    std::stringstream dirs(DHA_PLUGIN_DIRS);
    for (std::string d; std::getline(dirs, d, ':');) args.push_back("--plugin-dir=" + d);
    api_->write_kubeconfig(dir_ + "/kubeconfig", "operator");
    for (std::string flag : {"--kubeconfig=" + dir_ + "/kubeconfig", std::string("--plugins=postgres,metrics-vm"),
                             "--plugin-config=" + dir_ + "/plugin-config.json", std::string("--sync-period=1s"),
                             std::string("--enable-webhook=false"), std::string("--health-probe-bind-address=0"),
                             std::string("--metrics-bind-address=0"), std::string("--log-format=text")})
      args.push_back(flag);
    operator_ = std::make_unique<OperatorRun>(args, dir_ + "/operator.log");
  }

  void TearDown() override {
    stop_ = true;
    if (pusher_.joinable()) pusher_.join();
    if ((HasFailure() || std::getenv("DHA_SHOW_OPERATOR_LOG") != nullptr) && operator_)
      std::cerr << "---- operator log ----\n" << operator_->log_tail() << "\n";
    operator_.reset();
    vm_.reset();
    api_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::unique_ptr<kube::Client> client(const std::string& token) {
    const std::string path = dir_ + "/kubeconfig-" + token;
    api_->write_kubeconfig(path, token);
    kube::ConfigFlags flags;
    flags.kubeconfig = path;
    return std::make_unique<kube::Client>(kube::Config::load(flags));
  }

  void set_load(double connections) {
    const auto ts =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    vm_->push(
        fmt::format(
            "cnpg_backends_total{{namespace=\"tenant-a\",pod=\"db-2\",state=\"active\"}} {0} {1}\n"
            "kube_pod_labels{{namespace=\"tenant-a\",pod=\"db-2\",label_apps_cozystack_io_application_name=\"db\","
            "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"replica\"}} 1 {1}\n",
            connections, ts),
        2s);
  }

  void set_available(int n) {
    auto wm = admin_->get(kMonitor);
    auto& a = wm.GetAllocator();
    wm.RemoveMember("status");
    auto status =
        kube::parse_json(fmt::format(R"({{"operational":true,"availableReplicas":{0},"observedReplicas":{0}}})", n));
    rapidjson::Value copy(status, a);
    wm.AddMember("status", copy, a);
    admin_->update_status(kMonitor, wm);
  }

  int replicas() { return kube::find_path(admin_->get(kPg), {"spec", "replicas"})->GetInt(); }

  std::vector<testing::AuditEntry> operator_patches() {
    std::vector<testing::AuditEntry> out;
    for (auto& e : api_->audit())
      if (e.method == "PATCH" && e.path == kube::resource_path(kPg) && e.username == kOperator && e.status < 300)
        out.push_back(e);
    return out;
  }

  std::string dir_;
  std::unique_ptr<testing::ApiServer> api_;
  std::unique_ptr<VmServer> vm_;
  std::unique_ptr<kube::Client> admin_;
  std::unique_ptr<OperatorRun> operator_;
  std::atomic<double> load_{100};
  std::atomic<bool> stop_{false};
  std::thread pusher_;
};

TEST_F(FailedStatusWrite, APatchWhoseStatusWriteFailedIsStillOursSoATenantChangeIsAConflict) {
  // Settled at 2: the DHA has a status and writes nothing more while nothing changes.
  ASSERT_TRUE(eventually(
      [&] {
        auto d = admin_->get(kDha);
        return kube::string_at(d, {"status", "lastDecision", "kind"}) == "NoChange";
      },
      30s));
  // Every status write fails from just before the scale until a while after it (a 500 storm).
  api_->inject_fault("PATCH", "/databasehorizontalautoscalers/db-dha/status$", 500, 100000);
  load_ = 200;  // raw 3: one step up
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 20s));
  std::this_thread::sleep_for(2s);
  api_->clear_faults();
  ASSERT_EQ(operator_patches().size(), 1u);
  set_available(3);  // the engine converges
  EXPECT_TRUE(eventually(
      [&] {
        auto d = admin_->get(kDha);
        const auto* applied = kube::find_path(d, {"status", "lastAppliedReplicas"});
        return applied != nullptr && applied->IsInt() && applied->GetInt() == 3;
      },
      15s))
      << "the applied count never reached status";
  load_ = 100;  // back to raw 2; the 600 s down window holds 3 anyway

  // A tenant sets the old count back. The operator must not scale over them.
  client("tenant")->merge_patch(kPg, R"({"spec":{"replicas":2}})");
  set_available(2);
  load_ = 350;  // the load now asks for more: only ownership stops the operator
  std::this_thread::sleep_for(5s);
  EXPECT_EQ(replicas(), 2) << "the operator overrode the tenant's change (write war)";
  EXPECT_EQ(operator_patches().size(), 1u);
  auto d = admin_->get(kDha);
  bool conflict = false;
  if (const auto* cs = kube::find_path(d, {"status", "conditions"}); cs != nullptr && cs->IsArray())
    for (const auto& c : cs->GetArray())
      if (kube::string_at(c, {"type"}) == "ScalingLimited" && kube::string_at(c, {"reason"}) == "OwnershipConflict")
        conflict = true;
  EXPECT_TRUE(conflict) << kube::to_json(d);
}

// The soak's second finding: recommendations made while status writes failed were lost with
// them, so the down window no longer remembered what it had held and scaled down early.
TEST_F(FailedStatusWrite, RecommendationsMadeWhileStatusWritesFailStillHoldTheDownWindow) {
  ASSERT_TRUE(eventually(
      [&] {
        auto d = admin_->get(kDha);
        return kube::string_at(d, {"status", "lastDecision", "kind"}) == "NoChange";
      },
      30s));
  api_->inject_fault("PATCH", "/databasehorizontalautoscalers/db-dha/status$", 500, 100000);
  load_ = 200;  // raw 3: one step up; every status write fails from here on
  ASSERT_TRUE(eventually([&] { return replicas() == 3; }, 20s));
  set_available(3);
  std::this_thread::sleep_for(3s);  // a few cycles recommending 3, none of them in status
  load_ = 100;                      // raw 2, but 3 was recommended seconds ago: the 600 s window holds 3
  std::this_thread::sleep_for(6s);
  EXPECT_EQ(replicas(), 3) << "scaled down inside the down window";
  api_->clear_faults();
  std::this_thread::sleep_for(3s);
  EXPECT_EQ(replicas(), 3) << "scaled down inside the down window once status writes worked again";
  EXPECT_EQ(operator_patches().size(), 1u);
}

}  // namespace
}  // namespace dha::soak
