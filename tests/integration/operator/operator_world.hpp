#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <cstdint>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "chart_rbac.hpp"
#include "dha/kube/client.hpp"
#include "dha/testing/test_cluster.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "operator_process.hpp"

// A small world for the operator: a Kubernetes API server (the embedded one, or a real
// kube-apiserver with DHA_TEST_KUBE=real) with the fixture CRDs and the DHA CRD, a real
// VictoriaMetrics, a Postgres application "db" in namespace "tenant-a" with its
// WorkloadMonitor, and db-autoscaler processes. The test plays the engine operator (it sets the
// WorkloadMonitor status after a patch) and the exporters (it pushes CNPG-shaped series).
// On the real server every test of a process shares one control plane (it takes ~10 s to
// start): each test after the first starts from the objects of a fresh one (see
// scenario_cleanup.hpp), so a suite is registered as one process there.
namespace dha::optest {

using namespace std::chrono_literals;

inline constexpr const char* kNamespace = "tenant-a";
inline constexpr const char* kApp = "db";
inline constexpr const char* kDha = "db-dha";
inline constexpr const char* kOperatorA = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler-a";
inline constexpr const char* kOperatorB = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler-b";
inline constexpr const char* kOperatorC = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler-c";
// The username of operator 'a', 'b' or 'c'.
const char* operator_username(char which);

struct DhaOptions {
  int min = 2;
  int max = 6;
  int target = 100;  // ReadConnections per read replica
  int up_window = 0;
  int down_window = 600;
  int up_step = 1;
  int down_step = 1;
  int deadline = 600;
  bool dry_run = false;
  bool immediate_first_decision = false;
  int max_lag = 30;
  std::string kind = "Postgres";
  std::string api_group = "apps.cozystack.io";
};

class OperatorWorld : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // --- the operator ---
  // Starts `db-autoscaler run` authenticated as operator "a", "b" or "c". `flags` override the
  // test defaults by name ({"--sync-period", "60s"}); `extra` are appended as they are.
  OperatorProcess& start_operator(char which = 'a', std::map<std::string, std::string> flags = {},
                                  std::vector<std::string> extra = {});
  std::uint16_t metrics_port(char which = 'a') const {
    return which == 'a' ? metrics_port_a_ : which == 'b' ? metrics_port_b_ : metrics_port_c_;
  }
  std::string metrics_text(char which = 'a');

  // --- the world ---
  void create_postgres(int replicas, int max_sync_replicas = 0, const std::string& preset = "t1.micro");
  void create_workload_monitor(int available, bool operational = true);
  void set_health(int available, bool operational = true);
  // Plays the engine operator: new replicas become available soon after each patch.
  void auto_converge(bool on) { auto_converge_ = on; }
  void create_dha(const DhaOptions& o);
  // Total active read connections across the read replicas (one series, summed by the query).
  void set_load(double connections);
  // Replication lag (seconds) and whether the primary is writing (sent bytes growing).
  void set_lag(double seconds, bool writes);
  void create_quota(const std::string& hard_cpu, const std::string& used_cpu);
  void set_quota_used(const std::string& used_cpu);
  // As the identity "admin", "tenant", "operator-a", "operator-b", "scraper" or "apps".
  void set_replicas_as(const std::string& identity, int replicas);
  // Lets the RBAC subjects given (a JSON array's items) edit HelmReleases as far as RBAC goes:
  // the operator's chart RBAC has no HelmRelease access, so the decision is the webhook's alone.
  void grant_helmrelease_editing(const std::string& subjects_json);
  // The HelmRelease tenant-a/postgres-db (3 replicas) with the marker of the DHA "db" managing it.
  void create_managed_helmrelease();
  // Whether something accepts a TCP connection on 127.0.0.1:port.
  static bool listening_on_loopback(std::uint16_t port);

  // --- reading it back ---
  int replicas();
  std::string marker();
  rapidjson::Document dha();
  std::optional<rapidjson::Document> dha_if_exists();
  std::string condition(const std::string& type, const char* field = "reason");
  int status_int(const char* field);
  // Events on the DHA with this reason: their messages (count aggregation keeps one per message).
  std::vector<std::string> events(const std::string& reason);
  // PATCH requests that reached the Postgres object (the target), in order.
  std::vector<testing::AuditEntry> target_patches();

  // Polls `done` every 100 ms; true as soon as it holds. The deadline is `timeout` stretched by
  // the machine's deadline scale (tests/support/deadline_scale.hpp): written for an idle machine.
  static bool eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout);

  // One read of the DHA and whether it showed the state a test waits for.
  struct DhaRead {
    bool reached = false;
    rapidjson::Document dha;       // the read that reached it, or the last one
    std::string describe() const;  // its replicas, conditions and last decision, for a failure
  };
  // Polls the DHA until `done` holds for ONE read of it: every field a test asserts comes from
  // the same version of the object, so no reconcile can fall between two of them (two GETs can
  // see two different cycles' statuses). Deadline as eventually().
  DhaRead wait_for_dha(const std::function<bool(const rapidjson::Value& dha)>& done, std::chrono::milliseconds timeout);
  // A condition's field and a status integer of one read (empty / -1 when absent).
  static std::string condition_of(const rapidjson::Value& dha, const std::string& type, const char* field = "reason");
  static int status_int_of(const rapidjson::Value& dha, const char* field);
  // The line of `gate` in the read's lastDecision trace ("QuorumVsQuota: 4 -> 4, Pass: ..."), or empty.
  static std::string gate_line_of(const rapidjson::Value& dha, const std::string& gate);
  // Whether the read's status.recommendations holds one of `replicas` (a window can hold it).
  static bool recommends(const rapidjson::Value& dha, int replicas);
  // Asserts `ok` holds for the whole period (polling), e.g. "no patch during the window".
  static bool holds_for(const std::function<bool()>& ok, std::chrono::milliseconds period);

  // Owned by this test on the embedded backend, the process's shared one on the real backend.
  testing::TestCluster* cluster_ = nullptr;
  std::set<Grant> chart_grants_;  // real backend: what the chart grants the operator
  std::unique_ptr<testing::VictoriaMetrics> vm_;
  std::unique_ptr<kube::Client> admin_;
  std::string dir_;
  std::vector<std::unique_ptr<OperatorProcess>> operators_;
  // Every request of an operator that the real server refused with 403, described.
  std::vector<std::string> operator_403s();
  bool expect_403s_ = false;  // a test that takes a grant away expects them
  // Requests ("PATCH /apis/...") a test makes as an operator identity and expects refused, by an
  // admission webhook rather than by RBAC: the audit shows both as 403.
  std::set<std::string> expected_refusals_;
  // `helm template` arguments for the chart whose RBAC the operators get on the real server
  // ({"--set", "cnpg.enabled=true"}); a fixture sets them in its constructor.
  std::vector<std::string> chart_args_;
  // Extra kube-apiserver flags for the real backend ("--flag=value"); a fixture sets them
  // before SetUp. They apply to the process's control plane when this test starts it: a suite
  // that needs them runs in a process of its own.
  std::vector<std::string> real_apiserver_args_;

 private:
  std::unique_ptr<testing::TestCluster> own_cluster_;
  void converge_loop();
  // On the real server the operators get exactly the chart's RBAC, and the tenant may edit its
  // databases; on teardown every 403 an operator got fails the test.
  void apply_real_rbac();
  void fail_on_operator_403s();
  kube::ResourceRef postgres_ref() const;
  kube::ResourceRef monitor_ref() const;

  std::string quota_hard_;
  std::uint16_t metrics_port_a_ = 0;
  std::uint16_t metrics_port_b_ = 0;
  std::uint16_t metrics_port_c_ = 0;
  std::atomic<bool> auto_converge_{false};
  std::atomic<bool> stop_{false};
  std::thread converger_;
};

}  // namespace dha::optest
