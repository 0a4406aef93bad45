// The chaos soak: two `db-autoscaler run` processes with leader election, the
// embedded API server and a real VictoriaMetrics, four DHAs under a looping load trace, and a
// seeded random fault schedule. Afterwards every write the API server recorded is checked
// against the safety invariants (soak_invariants.hpp); status is compared across every restart.
//
//   soak_test                          # ~90 s of chaos, a fresh random seed (printed)
//   soak_test --seed=42 --seconds=1800 # replay / run long; or DHA_SOAK_SEED, DHA_SOAK_SECONDS
//   soak_test --shards=2               # the operators run with --shards 2; or DHA_SOAK_SHARDS
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/shard_assignment.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/child_process.hpp"
#include "dha/testing/world/load_curve.hpp"
#include "fault_schedule.hpp"
#include "soak_invariants.hpp"
#include "soak_world.hpp"
#include "tcp_proxy.hpp"

namespace dha::soak {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::uint64_t g_seed = 0;
int g_seconds = 90;
int g_shards = 1;  // > 1: each write must come from the holder of its DHA's shard Lease

constexpr const char* kAdminToken = "admin-token";
constexpr const char* kTenantToken = "tenant-token";
constexpr int kIncarnations = 400;  // one identity per operator process start, per slot
constexpr auto kStaleness = 10s;    // VictoriaMetrics lookback: older samples are no metric
constexpr auto kFreshness = 15s;    // the invariant's bound (looser than the lookback)
const std::string kLeasePath =
    "/apis/coordination.k8s.io/v1/namespaces/default/leases/db-autoscaler.autoscaling.cozystack.io";

// Total read connections over time (looped); each target scales and shifts it.
constexpr const char* kLoadCsv =
    "time,ReadConnections\n0,150\n8,360\n22,360\n30,120\n44,60\n52,260\n64,430\n76,90\n96,150\n";

struct Target {
  std::string ns, app, kind;  // kind: Postgres or Cluster (CNPG, actuated through /scale)
  int replicas = 2, max_sync = 0, min = 1, max = 4, down_window = 8, deadline = 15;
  bool dry_run = false, quota = false;
  double load_scale = 1, load_offset = 0;

  bool cnpg() const { return kind == "Cluster"; }
  std::string dha() const { return app + "-dha"; }
  std::string path() const {
    return cnpg() ? fmt::format("/apis/postgresql.cnpg.io/v1/namespaces/{}/clusters/{}", ns, app)
                  : fmt::format("/apis/apps.cozystack.io/v1alpha1/namespaces/{}/postgreses/{}", ns, app);
  }
  // The Lease its writer must hold: the leader Lease, or (sharded) its shard's.
  std::string lease_path() const {
    if (g_shards <= 1) return kLeasePath;
    return fmt::format("{}-shard-{}", kLeasePath, kube::shard_of(ns + "/" + dha(), g_shards));
  }
  std::string dha_path() const {
    return fmt::format("/apis/autoscaling.cozystack.io/v1alpha1/namespaces/{}/databasehorizontalautoscalers/{}", ns,
                       dha());
  }
  std::string quota_path() const { return fmt::format("/api/v1/namespaces/{}/resourcequotas/quota", ns); }
  kube::ResourceRef ref() const {
    return cnpg() ? kube::ResourceRef{"postgresql.cnpg.io", "v1", "clusters", ns, app}
                  : kube::ResourceRef{"apps.cozystack.io", "v1alpha1", "postgreses", ns, app};
  }
  // The object whose status says how healthy the target is.
  kube::ResourceRef health_ref() const {
    return cnpg() ? ref() : kube::ResourceRef{"cozystack.io", "v1alpha1", "workloadmonitors", ns, "postgres-" + app};
  }
  kube::ResourceRef dha_ref() const { return kube::resources::dhas(ns).named(dha()); }
  kube::ResourceRef quota_ref() const { return kube::resources::resource_quotas(ns).named("quota"); }
};

std::vector<Target> soak_targets() {
  std::vector<Target> t(4);
  // pg-main's quorum floor (3) is above its minReplicas, so low load presses against the floor.
  t[0] = {"tenant-a", "pg-main", "Postgres", 3, 2, 2, 5, 8, 15, false, false, 1.0, 0};
  t[1] = {"tenant-a", "pg-dry", "Postgres", 2, 0, 2, 4, 8, 15, true, false, 0.8, 30};
  t[2] = {"tenant-b", "pg-quota", "Postgres", 2, 0, 2, 8, 6, 15, false, true, 1.5, 15};
  t[3] = {"tenant-a", "cl-main", "Cluster", 3, 1, 2, 5, 10, 15, false, false, 1.2, 50};
  return t;
}
constexpr std::int64_t kPerPodMilli = 500;      // t1.micro
constexpr std::int64_t kQuotaHardMilli = 2500;  // so pg-quota tops out at 5 replicas

kube::Config config_for(const testing::ApiServer& api, const std::string& dir, const std::string& token) {
  const std::string path = dir + "/kubeconfig-" + token;
  api.write_kubeconfig(path, token);
  kube::ConfigFlags flags;
  flags.kubeconfig = path;
  return kube::Config::load(flags);
}

std::string operator_user(char slot, int incarnation) {
  return fmt::format("system:serviceaccount:cozy-db-autoscaler:db-autoscaler-{}-{}", slot, incarnation);
}

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Everything the helper threads and the fault loop share.
struct Shared {
  std::mutex mu;
  std::vector<MetricPush> pushes;
  std::map<std::size_t, Clock::time_point> gap_until;        // metric-gap faults
  std::map<std::size_t, Clock::time_point> unhealthy_until;  // health-flip: not operational
  std::map<std::size_t, Clock::time_point> degraded_until;   // health-flip: one replica unavailable
  bool vm_paused = false;
};

class Soak : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::make_temp_dir("dha-soak");
    testing::ApiServerOptions o;
    o.tokens[kAdminToken] = {"admin", {"system:masters"}, "uid-admin"};
    o.tokens[kTenantToken] = {"tenant-user", {"system:authenticated"}, "uid-tenant"};
    for (char slot : {'a', 'b'})
      for (int i = 1; i <= kIncarnations; ++i) {
        o.tokens[fmt::format("op-{}-{}", slot, i)] = {operator_user(slot, i), {"system:serviceaccounts"}, ""};
        rules_.operators.insert(operator_user(slot, i));
      }
    o.crd_dirs = {std::string(DHA_SOURCE_DIR) + "/sdk/testing/crds",
                  std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
    o.watch_history = 20000;
    api_ = std::make_unique<testing::ApiServer>(o);
    api_->start();
    for (auto& hop : hops_) hop = std::make_unique<testsupport::TcpProxy>(api_->port());
    vm_ = std::make_unique<VmServer>(dir_, kStaleness);
    vm_->start();
    admin_ = std::make_unique<kube::Client>(config_for(*api_, dir_, kAdminToken));
    engine_client_ = std::make_unique<kube::Client>(config_for(*api_, dir_, kAdminToken));
    std::ofstream(dir_ + "/plugin-config.json")
        << R"({"metrics-vm": {"url": ")" << vm_->url() << R"(", "timeoutSeconds": 2}})";
    curve_ = std::make_unique<testing::world::LoadCurve>(testing::world::LoadCurve::parse_csv(kLoadCsv, "soak"));
    targets_ = soak_targets();
    create_world();
    rules_.lease_path = kLeasePath;
    rules_.freshness = kFreshness;
    for (const auto& t : targets_) {
      TargetRules r;
      r.name = t.ns + "/" + t.dha();
      r.target_path = t.path();
      r.replicas_field = t.cnpg() ? "instances" : "replicas";
      r.dha_path = t.dha_path();
      r.lease_path = t.lease_path();
      r.series = t.ns + "/" + t.app;
      r.min = t.min;
      r.max = t.max;
      r.quorum_floor = t.max_sync + 1;  // CNPG: maxSyncReplicas standbys + the primary
      r.dry_run = t.dry_run;
      r.down_window = std::chrono::seconds(t.down_window);
      r.deadline = std::chrono::seconds(t.deadline);
      if (t.quota) {
        r.quota_status_path = t.quota_path() + "/status";
        r.per_pod_milli_cpu = kPerPodMilli;
      }
      rules_.targets.push_back(r);
    }
  }

  void TearDown() override {
    stop_helpers();
    for (auto& op : operators_) op.reset();
    for (auto& hop : hops_) hop.reset();
    vm_.reset();
    api_.reset();
    if (!HasFailure())
      std::filesystem::remove_all(dir_);
    else
      std::cerr << "soak files kept in " << dir_ << "\n";
  }

  // --- the world ---
  void create_world() {
    for (const char* ns : {"tenant-a", "tenant-b"})
      admin_->create(
          kube::resources::namespaces(),
          kube::parse_json(fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}",)"
                                       R"("labels":{{"namespace.cozystack.io/monitoring":"tenant-root"}}}}}})",
                                       ns)));
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      const auto& t = targets_[i];
      if (t.cnpg()) {
        admin_->create(t.ref().collection(),
                       kube::parse_json(fmt::format(
                           R"({{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{{"name":"{}"}},)"
                           R"("spec":{{"instances":{},"maxSyncReplicas":{}}}}})",
                           t.app, t.replicas, t.max_sync)));
      } else {
        admin_->create(
            t.ref().collection(),
            kube::parse_json(fmt::format(
                R"({{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{{"name":"{}"}},)"
                R"("spec":{{"replicas":{},"resourcesPreset":"t1.micro","size":"10Gi",)"
                R"("quorum":{{"minSyncReplicas":0,"maxSyncReplicas":{}}}}}}})",
                t.app, t.replicas, t.max_sync)));
        admin_->create(
            t.health_ref().collection(),
            kube::parse_json(fmt::format(R"({{"apiVersion":"cozystack.io/v1alpha1","kind":"WorkloadMonitor",)"
                                         R"("metadata":{{"name":"postgres-{}"}},)"
                                         R"("spec":{{"kind":"postgres","type":"postgres","minReplicas":1}}}})",
                                         t.app)));
      }
      if (t.quota) {
        admin_->create(
            t.quota_ref().collection(),
            kube::parse_json(fmt::format(R"({{"apiVersion":"v1","kind":"ResourceQuota","metadata":{{"name":"quota"}},)"
                                         R"("spec":{{"hard":{{"requests.cpu":"{}m"}}}}}})",
                                         kQuotaHardMilli)));
      }
      engine_sync(i, *admin_);
      admin_->create(
          t.dha_ref().collection(),
          kube::parse_json(fmt::format(
              R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
              R"("metadata":{{"name":"{}"}},)"
              R"("spec":{{"targetRef":{{"apiGroup":"{}","kind":"{}","name":"{}"}},"minReplicas":{},"maxReplicas":{},)"
              R"("metrics":[{{"type":"ReadConnections","target":{{"averageValue":"100"}}}}],)"
              R"("behavior":{{"scaleUp":{{"stabilizationWindowSeconds":0,"step":1}},)"
              R"("scaleDown":{{"stabilizationWindowSeconds":{},"step":1}},"convergenceDeadlineSeconds":{}}},)"
              R"("constraints":{{"respectQuorum":true,"maxReplicationLagSeconds":30}},"dryRun":{}}}}})",
              t.dha(), t.cnpg() ? "postgresql.cnpg.io" : "apps.cozystack.io", t.kind, t.app, t.min, t.max,
              t.down_window, t.deadline, t.dry_run ? "true" : "false")));
    }
  }

  int replicas_of(std::size_t i, kube::Client& client) {
    auto obj = client.get(targets_[i].ref());
    const auto* r = kube::find_path(obj, {"spec", targets_[i].cnpg() ? "instances" : "replicas"});
    return r != nullptr && r->IsInt() ? r->GetInt() : -1;
  }

  // Plays the engine operator (and the quota controller) for target i: the quota's used CPU
  // follows replicas at once; new replicas become available after a provisioning delay, removed
  // ones go at once; the health-flip faults override what the health object says.
  void engine_sync(std::size_t i, kube::Client& client) {
    const auto& t = targets_[i];
    const int want = replicas_of(i, client);
    auto& seen = engine_[i];
    const auto now = Clock::now();
    if (want != seen.replicas) {
      seen.changed = now;
      seen.from = seen.replicas < 0 ? want : seen.replicas;  // the initial replicas are all up
      seen.replicas = want;
    }
    if (t.quota && seen.quota_used != want) {
      auto q = client.get(t.quota_ref());
      q.RemoveMember("status");
      auto status =
          kube::parse_json(fmt::format(R"({{"hard":{{"requests.cpu":"{}m"}},"used":{{"requests.cpu":"{}m"}}}})",
                                       kQuotaHardMilli, want * kPerPodMilli));
      rapidjson::Value copy(status, q.GetAllocator());
      q.AddMember("status", copy, q.GetAllocator());
      client.update_status(t.quota_ref(), q);
      seen.quota_used = want;
    }
    const bool provisioning = want > seen.from && now - seen.changed < 1500ms;
    int available = provisioning ? std::max(seen.from, 0) : want;
    bool operational = true;
    {
      std::lock_guard lock(shared_.mu);
      if (shared_.unhealthy_until.count(i) && now < shared_.unhealthy_until[i]) operational = false;
      if (shared_.degraded_until.count(i) && now < shared_.degraded_until[i]) available = std::max(want - 1, 0);
    }
    if (seen.written_available == available && seen.written_operational == operational) return;
    rapidjson::Document obj = client.get(t.health_ref());
    auto& a = obj.GetAllocator();
    obj.RemoveMember("status");
    rapidjson::Value status(rapidjson::kObjectType);
    if (t.cnpg()) {
      status.AddMember("instances", want, a);
      status.AddMember("readyInstances", available, a);
      status.AddMember("phase", rapidjson::Value(operational ? "Cluster in healthy state" : "Failing over", a), a);
    } else {
      status.AddMember("operational", operational, a);
      status.AddMember("availableReplicas", available, a);
      status.AddMember("observedReplicas", want, a);
    }
    obj.AddMember("status", status, a);
    client.update_status(t.health_ref(), obj);
    seen.written_available = available;
    seen.written_operational = operational;
  }

  // Exporters: one import per second with every target's series (except gapped ones).
  void push_metrics() {
    const double t = std::chrono::duration<double>(Clock::now() - started_).count();
    const auto ts = now_ms();
    std::string body;
    std::vector<std::string> series;
    {
      std::lock_guard lock(shared_.mu);
      for (std::size_t i = 0; i < targets_.size(); ++i) {
        if (shared_.gap_until.count(i) && Clock::now() < shared_.gap_until[i]) continue;
        const auto& tg = targets_[i];
        const double load =
            curve_->at(std::fmod(t + tg.load_offset, curve_->duration_seconds())).read_connections * tg.load_scale;
        body += fmt::format("cnpg_backends_total{{namespace=\"{}\",pod=\"{}-2\",state=\"active\"}} {} {}\n", tg.ns,
                            tg.app, load, ts);
        if (tg.cnpg()) {
          body += fmt::format(
              "kube_pod_labels{{namespace=\"{0}\",pod=\"{1}-2\",label_cnpg_io_cluster=\"{1}\","
              "label_cnpg_io_instance_role=\"replica\"}} 1 {2}\n",
              tg.ns, tg.app, ts);
        } else {
          for (const char* role : {"replica", "primary"})
            body += fmt::format(
                "kube_pod_labels{{namespace=\"{0}\",pod=\"{1}-{3}\",label_apps_cozystack_io_application_name=\"{1}\","
                "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"{4}\"}} 1 {2}\n",
                tg.ns, tg.app, ts, role[0] == 'r' ? 2 : 1, role);
        }
        series.push_back(tg.ns + "/" + tg.app);
      }
    }
    if (body.empty()) return;
    const auto sent = std::chrono::system_clock::now();
    const bool ok = vm_->push(body, 700ms);
    std::lock_guard lock(shared_.mu);
    // A push into a stopped (SIGSTOP) VictoriaMetrics times out here yet lands when it resumes:
    // count it, so the freshness rule never blames the operator for a sample it could see.
    if (ok || shared_.vm_paused)
      for (auto& s : series) shared_.pushes.push_back({sent, s});
  }

  void start_helpers() {
    started_ = Clock::now();
    pusher_ = std::thread([this] {
      while (!stop_) {
        try {
          push_metrics();
        } catch (const std::exception&) {
        }
        std::this_thread::sleep_for(1s);
      }
    });
    engine_thread_ = std::thread([this] {
      while (!stop_) {
        for (std::size_t i = 0; i < targets_.size(); ++i) {
          try {
            engine_sync(i, *engine_client_);
          } catch (const std::exception&) {
            // The API server is restarting or a fault hit us: next round.
          }
        }
        std::this_thread::sleep_for(250ms);
      }
    });
  }

  void stop_helpers() {
    stop_ = true;
    if (pusher_.joinable()) pusher_.join();
    if (engine_thread_.joinable()) engine_thread_.join();
  }

  // --- the operators ---
  void start_operator(std::size_t slot) {
    const char name = slot == 0 ? 'a' : 'b';
    const int incarnation = ++incarnations_[slot];
    if (incarnation > kIncarnations) throw std::runtime_error("more operator restarts than identities");
    const std::string token = fmt::format("op-{}-{}", name, incarnation);
    const std::string kubeconfig = dir_ + "/kubeconfig-" + token;
    api_->write_kubeconfig(kubeconfig, token);
    {
      // Each slot reaches the API server through its own hop (lease-loss-in-patch holds it).
      std::ifstream in(kubeconfig);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const std::string direct = api_->url();
      text.replace(text.find(direct), direct.size(), fmt::format("http://127.0.0.1:{}", hops_[slot]->port()));
      std::ofstream(kubeconfig) << text;
    }
    std::vector<std::string> args{DHA_BINARY, "run"};
    std::stringstream dirs(DHA_PLUGIN_DIRS);
    for (std::string d; std::getline(dirs, d, ':');) args.push_back("--plugin-dir=" + d);
    for (std::string flag : {"--kubeconfig=" + kubeconfig, std::string("--plugins=postgres,metrics-vm"),
                             "--plugin-config=" + dir_ + "/plugin-config.json", std::string("--sync-period=1s"),
                             std::string("--enable-webhook=false"), std::string("--health-probe-bind-address=0"),
                             std::string("--metrics-bind-address=0"), std::string("--leader-elect"),
                             std::string("--leader-election-namespace=default"), std::string("--log-format=text"),
                             std::string("--log-level=info")})
      args.push_back(flag);
    if (g_shards > 1) args.push_back(fmt::format("--shards={}", g_shards));
    operators_[slot] =
        std::make_unique<OperatorRun>(args, fmt::format("{}/operator-{}-{}.log", dir_, name, incarnation));
  }

  // The slot whose current process holds `lease` (the leader Lease, or a shard's), from the
  // audit log (the last write of that Lease).
  std::optional<std::size_t> leader_slot(const std::string& lease) {
    const auto audit = api_->audit();
    for (auto it = audit.rbegin(); it != audit.rend(); ++it) {
      if (it->path != lease || it->status >= 300 || it->method == "GET") continue;
      rapidjson::Document d;
      d.Parse(it->body.c_str());
      if (d.HasParseError() || !d.IsObject()) continue;
      const auto holder = kube::string_at(d, {"spec", "holderIdentity"});
      if (holder.empty()) return std::nullopt;
      for (std::size_t slot = 0; slot < 2; ++slot)
        if (it->username == operator_user(slot == 0 ? 'a' : 'b', incarnations_[slot])) return slot;
      return std::nullopt;  // an earlier (dead) incarnation still holds it
    }
    return std::nullopt;
  }

  // --- status across restarts ---
  struct PendingStatusCheck {
    FaultKind restart;  // kKillLeader or kRestartApiServer
    std::string what;
    std::chrono::system_clock::time_point after;  // resolved by the first status write after this
    std::map<std::size_t, rapidjson::Document> before;
  };

  std::map<std::size_t, rapidjson::Document> snapshot_statuses() {
    std::map<std::size_t, rapidjson::Document> out;
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      try {
        auto d = admin_->get(targets_[i].dha_ref());
        rapidjson::Document status;
        if (d.HasMember("status")) status.CopyFrom(d["status"], status.GetAllocator());
        out.emplace(i, std::move(status));
      } catch (const std::exception&) {
      }
    }
    return out;
  }

  // Compares each DHA that has had a status write since the restart; true when all are done.
  bool resolve(PendingStatusCheck& p, bool final_check) {
    const auto audit = api_->audit();
    for (auto it = p.before.begin(); it != p.before.end();) {
      const auto& t = targets_[it->first];
      bool written = final_check;
      for (const auto& e : audit)
        if (e.path == t.dha_path() + "/status" && e.status < 300 && e.received > p.after) written = true;
      if (!written) {
        ++it;
        continue;
      }
      try {
        auto now_doc = admin_->get(t.dha_ref());
        rapidjson::Value null_status;
        const rapidjson::Value& after = now_doc.HasMember("status") ? now_doc["status"] : null_status;
        for (auto& v : check_status_kept(p.what + " (" + t.dha() + ")", it->second, after,
                                         std::chrono::system_clock::now(), std::chrono::seconds(t.down_window)))
          status_violations_.push_back(std::move(v));
        ++status_checks_;
        ++status_compared_after_[p.restart];
        it = p.before.erase(it);
      } catch (const std::exception&) {
        ++it;  // the API server is down right now; later
      }
    }
    return p.before.empty();
  }

  void resolve_pending(bool final_check) {
    for (auto it = pending_.begin(); it != pending_.end();) it = resolve(*it, final_check) ? pending_.erase(it) : ++it;
  }

  // Where each DHA ended (not an invariant: a DHA may legitimately end frozen), so a soak that
  // left one stuck, e.g. in OwnershipConflict without a tenant write, shows it.
  void print_final_state() {
    std::cout << "final state\n";
    for (std::size_t i = 0; i < targets_.size(); ++i) {
      try {
        const auto& t = targets_[i];
        auto d = admin_->get(t.dha_ref());
        std::string conditions;
        if (const auto* cs = kube::find_path(d, {"status", "conditions"}); cs != nullptr && cs->IsArray())
          for (const auto& c : cs->GetArray())
            conditions += fmt::format(" {}={}/{}", kube::string_at(c, {"type"}), kube::string_at(c, {"status"}),
                                      kube::string_at(c, {"reason"}));
        const auto* applied = kube::find_path(d, {"status", "lastAppliedReplicas"});
        std::cout << fmt::format("  {}/{}: replicas {}, lastApplied {},{}\n", t.ns, t.dha(), replicas_of(i, *admin_),
                                 applied != nullptr && applied->IsInt() ? std::to_string(applied->GetInt()) : "-",
                                 conditions);
        if (conditions.find("OwnershipConflict") != std::string::npos) {
          // Liveness, not safety: a conflict whose last replicas write was the operator's own
          // is self-inflicted (its status write after that patch never landed) and never ends.
          const auto audit = api_->audit();  // a copy: `last` points into it
          const testing::AuditEntry* last = nullptr;
          for (const auto& e : audit)
            if ((e.path == t.path() || e.path == t.path() + "/scale") && e.method == "PATCH" && e.status < 300 &&
                e.body.find(t.cnpg() && e.path == t.path() ? "\"instances\"" : "\"replicas\"") != std::string::npos)
              last = &e;
          if (last != nullptr && rules_.operators.count(last->username) > 0) {
            ++self_inflicted_conflicts_;
            std::cout << "    self-inflicted OwnershipConflict: the last replicas write was the operator's own ("
                      << last->username << ", " << last->body << ")\n";
          }
        }
      } catch (const std::exception& e) {
        std::cout << "  " << targets_[i].dha() << ": " << e.what() << "\n";
      }
    }
  }

  // The whole audit log, one line per request, next to the operator logs for a post-mortem.
  void dump_audit(const std::vector<testing::AuditEntry>& audit) {
    std::ofstream out(dir_ + "/audit.log");
    for (const auto& e : audit) {
      const auto ms = [](std::chrono::system_clock::time_point t) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
      };
      out << ms(e.received) << " " << ms(e.time) << " " << e.status << " " << e.method << " " << e.path << " "
          << e.username << " " << e.body << "\n";
    }
    std::cout << "audit log written to " << dir_ << "/audit.log\n";
  }

  // --- faults ---
  std::string request_regex(int variant, std::size_t target, std::string& method) {
    const auto& t = targets_[target];
    switch (variant) {
      case 0:
        method = "PATCH";
        return t.path();  // the replicas write (or marker)
      case 1:
        method = "PATCH";
        return t.dha_path() + "/status";  // the status write
      case 2:
        method = "PUT";
        return "/leases/";  // Lease renewals
      case 3:
        method = "GET";
        return t.path() + "$";  // reading the target
      default:
        method = "*";
        return "/resourcequotas|/workloadmonitors|/clusters";  // health and quota reads
    }
  }

  static void sleep_while_resolving(std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }

  // An operator that exited without being killed is restarted, as the kubelet would, and
  // counted (a crash loop shows in the summary and the logs are printed).
  void restart_exited_operators() {
    for (std::size_t slot = 0; slot < 2; ++slot) {
      if (operators_[slot] && !operators_[slot]->running()) {
        ++own_exits_;
        std::cout << "operator " << (slot == 0 ? 'a' : 'b') << " exited by itself; log tail:\n"
                  << operators_[slot]->log_tail() << "\n";
        start_operator(slot);
      }
    }
  }

  // Runs one fault; false when it could not do what it is for (the schedule then runs a
  // required one again).
  bool apply(const FaultPlan& p) {
    ++faults_[name(p.kind)];
    const auto& t = targets_[p.target];
    std::string method;
    switch (p.kind) {
      case FaultKind::kKillLeader: {
        const auto slot = leader_slot(t.lease_path()).value_or(p.target % 2);
        PendingStatusCheck check{
            p.kind, fmt::format("kill -9 of operator {}", slot == 0 ? 'a' : 'b'), {}, snapshot_statuses()};
        operators_[slot]->kill();
        sleep_while_resolving(p.length);
        start_operator(slot);
        check.after = std::chrono::system_clock::now();
        pending_.push_back(std::move(check));
        break;
      }
      case FaultKind::kRestartApiServer: {
        PendingStatusCheck check{p.kind, "API server restart", {}, snapshot_statuses()};
        const auto snapshot_at = std::chrono::system_clock::now();
        api_->stop();
        sleep_while_resolving(p.length);
        api_->start();
        // The store is kept: right after the restart every status is still there, unchanged,
        // unless the leader wrote it between the snapshot and the stop.
        // (The first requests after a restart may fail on connections pooled before it: retry.)
        auto now_statuses = snapshot_statuses();
        for (int attempt = 0; attempt < 10 && now_statuses.size() < check.before.size(); ++attempt) {
          std::this_thread::sleep_for(100ms);
          now_statuses = snapshot_statuses();
        }
        const auto audit = api_->audit();
        for (auto& [i, before] : check.before) {
          bool written = false;
          for (auto e = audit.rbegin(); e != audit.rend() && e->time >= snapshot_at; ++e)
            if (e->path.rfind(targets_[i].dha_path(), 0) == 0 && e->method != "GET" && e->status < 300) written = true;
          if (written) continue;
          auto it = now_statuses.find(i);
          if (it == now_statuses.end()) continue;  // unreadable now; the later field check still runs
          if (it->second != before)
            status_violations_.push_back({"status-kept", "API server restart (" + targets_[i].dha() + ")",
                                          "the status read right after the restart differs from before it"});
          ++status_checks_;
          ++status_compared_after_[p.kind];
        }
        check.after = std::chrono::system_clock::now();
        pending_.push_back(std::move(check));
        break;
      }
      case FaultKind::kRestartVm:
        vm_->kill();
        sleep_while_resolving(p.length);
        vm_->start();
        break;
      case FaultKind::kSlowVm: {
        std::lock_guard lock(shared_.mu);
        shared_.vm_paused = true;
        vm_->pause();
      }
        sleep_while_resolving(p.length);
        {
          std::lock_guard lock(shared_.mu);
          vm_->resume();
        }
        sleep_while_resolving(1s);  // pushes still in flight from the pause land now
        {
          std::lock_guard lock(shared_.mu);
          shared_.vm_paused = false;
        }
        break;
      case FaultKind::kApiConflicts: {
        const std::string regex = request_regex(p.variant % 3, p.target, method);
        api_->inject_fault(method, regex, 409, p.count);
        break;
      }
      case FaultKind::kApiErrors: {
        const std::string regex = request_regex(p.variant, p.target, method);
        api_->inject_fault(method, regex, p.status, p.count);
        break;
      }
      case FaultKind::kSlowApi: {
        const std::string regex = request_regex(p.variant, p.target, method);
        api_->inject_delay(method, regex, p.length, p.count);
        break;
      }
      case FaultKind::kHealthFlip: {
        std::lock_guard lock(shared_.mu);
        (p.variant % 2 == 0 ? shared_.unhealthy_until : shared_.degraded_until)[p.target] = Clock::now() + p.length;
        break;
      }
      case FaultKind::kOwnershipConflict: {
        if (t.dry_run) return false;  // the schedule never draws one: the operator never writes there
        kube::Client tenant(config_for(*api_, dir_, kTenantToken));
        const int before = replicas_of(p.target, tenant);
        if (before < 0) return false;
        // Another identity moves the count (within the DHA's bounds, so only ownership is at
        // stake), then puts it back, which ends the conflict (docs/behaviour.md#guardrail-ownership).
        const int other = before > t.min ? before - 1 : before + 1;
        const char* field = t.cnpg() ? "instances" : "replicas";
        tenant.merge_patch(t.ref(), fmt::format(R"({{"spec":{{"{}":{}}}}})", field, other));
        sleep_while_resolving(p.length);
        for (int attempt = 0;; ++attempt) {  // an injected fault may hit the tenant too
          try {
            tenant.merge_patch(t.ref(), fmt::format(R"({{"spec":{{"{}":{}}}}})", field, before));
            ++ownership_conflicts_;
            break;
          } catch (const std::exception&) {
            if (attempt == 20) throw;
            std::this_thread::sleep_for(300ms);
          }
        }
        break;
      }
      case FaultKind::kMetricGap: {
        std::lock_guard lock(shared_.mu);
        shared_.gap_until[p.target] = Clock::now() + p.length;
        gap_ends_.push_back(shared_.gap_until[p.target]);
        break;
      }
      case FaultKind::kLeaseLossInPatch:
        return lose_lease_in_patch(p.length);
      case FaultKind::kCount:
        break;
    }
    return true;
  }

  // The leader's next PATCH of a target is held on its way, and so is everything the leader
  // sends after it (its Lease renewals too): it loses the Lease while that PATCH is in flight
  // and the other operator takes over. Then the hop forwards again. A held request whose sender
  // still waits arrives after the takeover (the `leader` rule catches it); one its sender gave
  // up (at the end of its lease) is dropped unsent.
  // True when the other operator took the Lease over while the PATCH was held.
  bool lose_lease_in_patch(std::chrono::milliseconds limit) {
    // Sharded: the Lease of the first target's shard (all its holder's PATCHes are held).
    const std::string lease = targets_[0].lease_path();
    const auto slot = leader_slot(lease);
    if (!slot) {
      ++lease_loss_.no_leader;
      return false;
    }
    auto& hop = *hops_[*slot];
    const int dropped = hop.dropped_connections(), forwarded = hop.forwarded_connections();
    hop.hold_from({"PATCH /apis/apps.cozystack.io/", "PATCH /apis/postgresql.cnpg.io/"});
    const auto until = Clock::now() + limit;
    while (!hop.holding() && Clock::now() < until) std::this_thread::sleep_for(50ms);
    if (!hop.holding()) {
      hop.release();
      ++lease_loss_.no_patch;
      return false;
    }
    const std::size_t other = 1 - *slot;
    while (leader_slot(lease) != std::optional<std::size_t>(other) && Clock::now() < until)
      std::this_thread::sleep_for(200ms);
    const bool taken_over = leader_slot(lease) == std::optional<std::size_t>(other);
    if (taken_over) ++lease_loss_.taken_over;
    hop.release();
    std::this_thread::sleep_for(1s);  // what the hop forwards lands now
    lease_loss_.dropped += hop.dropped_connections() - dropped;
    lease_loss_.forwarded += hop.forwarded_connections() - forwarded;
    ++lease_loss_.patches_held;
    return taken_over;
  }

  std::string dir_;
  std::unique_ptr<testing::ApiServer> api_;
  std::unique_ptr<VmServer> vm_;
  std::unique_ptr<kube::Client> admin_;
  std::unique_ptr<kube::Client> engine_client_;
  std::unique_ptr<testing::world::LoadCurve> curve_;
  std::vector<Target> targets_;
  Rules rules_;
  Shared shared_;
  struct EngineSeen {
    int replicas = -1, from = -1, quota_used = -1, written_available = -1;
    bool written_operational = true;
    Clock::time_point changed;
  };
  std::map<std::size_t, EngineSeen> engine_;
  std::array<std::unique_ptr<OperatorRun>, 2> operators_;
  std::array<std::unique_ptr<testsupport::TcpProxy>, 2> hops_;
  struct LeaseLossCounts {
    int patches_held = 0, taken_over = 0, dropped = 0, forwarded = 0, no_patch = 0, no_leader = 0;
  } lease_loss_;
  std::array<int, 2> incarnations_{0, 0};
  std::map<std::string, int> faults_;
  std::vector<PendingStatusCheck> pending_;
  std::vector<Violation> status_violations_;
  std::size_t status_checks_ = 0;
  std::map<FaultKind, int> status_compared_after_;  // per kind of restart
  int ownership_conflicts_ = 0;                     // tenant changes made and put back
  std::vector<Clock::time_point> gap_ends_;         // when each metric gap ends
  int own_exits_ = 0;
  int self_inflicted_conflicts_ = 0;  // e.g. "leader election lost; exiting", as controller-runtime
  std::atomic<bool> stop_{false};
  Clock::time_point started_;
  std::thread pusher_, engine_thread_;
};

TEST_F(Soak, SafetyInvariantsHoldUnderChaos) {
  std::cout << fmt::format("soak: seed {} ({} s of chaos); replay with DHA_SOAK_SEED={} DHA_SOAK_SECONDS={}\n", g_seed,
                           g_seconds, g_seed, g_seconds)
            << "      (the fault sequence replays exactly; its timing against the operators does not)\n";
  if (g_shards > 1) std::cout << fmt::format("      sharded: --shards {}, DHA_SOAK_SHARDS={}\n", g_shards, g_shards);
  const auto began = Clock::now();
  start_operator(0);
  start_operator(1);
  start_helpers();
  std::vector<std::size_t> tenant_writable;
  for (std::size_t i = 0; i < targets_.size(); ++i)
    if (!targets_[i].dry_run) tenant_writable.push_back(i);
  FaultSchedule schedule(g_seed, ScheduleWorld{targets_.size(), 5, tenant_writable});
  std::cout << "      coverage first, in this order: " << schedule.coverage_order() << "\n";
  std::this_thread::sleep_for(3s);  // a leader, first cycles, first scale
  const auto end = Clock::now() + std::chrono::seconds(g_seconds);
  // A run whose time is up before every kind has taken effect goes on until it has (a slow
  // machine stretches the run, it does not shrink its coverage), up to this much longer.
  const auto overtime_end = end + 60s;
  while (Clock::now() < end || (!schedule.covered() && Clock::now() < overtime_end)) {
    const FaultPlan plan = schedule.next();
    bool took_effect = false;
    try {
      took_effect = apply(plan);
    } catch (const std::exception& e) {
      std::cout << "fault " << name(plan.kind) << " could not be completed: " << e.what() << "\n";
    }
    if (!took_effect && plan.required) std::cout << "required fault " << name(plan.kind) << " missed; again\n";
    schedule.record(plan, took_effect);
    restart_exited_operators();
    resolve_pending(false);
    std::this_thread::sleep_for(plan.pause_after);
    resolve_pending(false);
  }
  const auto overtime = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - end).count();

  // A metric gap is a check once it has lasted its length: if none has yet, wait for the first.
  if (!gap_ends_.empty() && std::none_of(gap_ends_.begin(), gap_ends_.end(), [](auto t) { return t <= Clock::now(); }))
    std::this_thread::sleep_until(*std::min_element(gap_ends_.begin(), gap_ends_.end()));
  const auto gaps_served = std::count_if(gap_ends_.begin(), gap_ends_.end(), [](auto t) { return t <= Clock::now(); });

  // Calm: no more faults, everything up; the last restarts get their status writes.
  api_->clear_faults();
  {
    std::lock_guard lock(shared_.mu);
    shared_.gap_until.clear();
    shared_.unhealthy_until.clear();
    shared_.degraded_until.clear();
  }
  std::this_thread::sleep_for(3s);  // the health objects and the DHAs settle
  for (int i = 0; i < 30 && !pending_.empty(); ++i) {
    std::this_thread::sleep_for(500ms);
    resolve_pending(false);
  }
  restart_exited_operators();
  print_final_state();
  operators_[0].reset();  // SIGTERM: the graceful path releases the Lease
  operators_[1].reset();
  stop_helpers();
  resolve_pending(true);

  const auto audit = api_->audit();
  std::vector<MetricPush> pushes;
  {
    std::lock_guard lock(shared_.mu);
    pushes = shared_.pushes;
  }
  const Report report = check(rules_, audit, pushes);
  int faults = 0;
  std::string by_kind;
  for (const auto& [kind, n] : faults_) {
    faults += n;
    by_kind += fmt::format("{}{} {}", by_kind.empty() ? "" : ", ", kind, n);
  }
  std::string by_rule;
  for (const auto& [rule, n] : report.passed) by_rule += fmt::format("{}{} {}", by_rule.empty() ? "" : ", ", rule, n);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - began).count();
  std::cout << fmt::format(
      "soak summary\n  seed {}\n  duration {} s ({} s of chaos; the last fault ended {} s after it)\n  faults injected "
      "{}: {}\n"
      "  operator processes started {} (exited by themselves {}, restarted)\n  API requests recorded {}\n"
      "  writes checked {} (replicas writes {})\n  invariant checks passed {}: {}\n"
      "  status-kept checks {} across restarts ({} after a leader kill, {} after an API server restart)\n"
      "  ownership conflicts made and put back {}, metric gaps served in full {}\n  self-inflicted ownership conflicts "
      "at the end {} (liveness, see README)\n"
      "  lease lost in a patch: {} PATCHes held, {} taken over by the other operator; held connections dropped "
      "unsent {}, forwarded {} (no PATCH within the limit {}, no leader {})\n"
      "  violations {}\n",
      g_seed, seconds, g_seconds, overtime, faults, by_kind, incarnations_[0] + incarnations_[1], own_exits_,
      audit.size(), report.writes_checked, report.passed.count("max") ? report.passed.at("max") : 0,
      report.checks_passed() + status_checks_ - status_violations_.size(), by_rule, status_checks_,
      status_compared_after_[FaultKind::kKillLeader], status_compared_after_[FaultKind::kRestartApiServer],
      ownership_conflicts_, gaps_served, self_inflicted_conflicts_, lease_loss_.patches_held, lease_loss_.taken_over,
      lease_loss_.dropped, lease_loss_.forwarded, lease_loss_.no_patch, lease_loss_.no_leader,
      report.violations.size() + status_violations_.size());

  if (!report.violations.empty() || !status_violations_.empty()) dump_audit(audit);
  for (const auto& v : report.violations)
    ADD_FAILURE() << "invariant " << v.rule << " violated\n  write: " << v.write << "\n  state: " << v.state;
  for (const auto& v : status_violations_)
    ADD_FAILURE() << "invariant " << v.rule << " violated at " << v.write << ": " << v.state;
  // A soak that never scaled or never faulted proved nothing.
  EXPECT_GE(report.passed.count("max") ? report.passed.at("max") : 0, 3u) << "fewer than 3 replicas writes";
  EXPECT_GT(faults, 0);
  // Coverage by construction: the schedule runs every kind first and again until it took
  // effect, so each of these fails only when the code (or the machine, past the overtime) did.
  std::string uncovered;
  for (FaultKind k : schedule.uncovered()) uncovered += fmt::format(" {}", name(k));
  EXPECT_TRUE(schedule.covered()) << "fault kinds that never took effect within the overtime:" << uncovered;
  EXPECT_GE(lease_loss_.taken_over, 1) << "no lease loss during a patch was completed";
  EXPECT_GT(status_compared_after_[FaultKind::kKillLeader], 0) << "no leader kill was followed by a status comparison";
  EXPECT_GT(status_compared_after_[FaultKind::kRestartApiServer], 0)
      << "no API server restart was followed by a status comparison";
  EXPECT_GT(ownership_conflicts_, 0) << "no ownership conflict was made and put back";
  EXPECT_GT(gaps_served, 0) << "no metric gap lasted its length";
}

}  // namespace
}  // namespace dha::soak

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (const char* s = std::getenv("DHA_SOAK_SEED"))
    dha::soak::g_seed = std::strtoull(s, nullptr, 10);
  else
    dha::soak::g_seed = std::random_device{}() % 1000000;
  if (const char* s = std::getenv("DHA_SOAK_SECONDS")) dha::soak::g_seconds = std::atoi(s);
  if (const char* s = std::getenv("DHA_SOAK_SHARDS")) dha::soak::g_shards = std::atoi(s);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--seed=", 0) == 0)
      dha::soak::g_seed = std::strtoull(a.c_str() + 7, nullptr, 10);
    else if (a.rfind("--seconds=", 0) == 0)
      dha::soak::g_seconds = std::atoi(a.c_str() + 10);
    else if (a.rfind("--shards=", 0) == 0)
      dha::soak::g_shards = std::atoi(a.c_str() + 9);
    else {
      std::cerr << "unknown argument " << a << " (use --seed=N, --seconds=N, --shards=N or gtest flags)\n";
      return 2;
    }
  }
  if (dha::soak::g_shards < 1) {
    std::cerr << "--shards / DHA_SOAK_SHARDS must be at least 1\n";
    return 2;
  }
  if (dha::soak::g_seconds <= 0) {
    std::cerr << "--seconds / DHA_SOAK_SECONDS must be a positive number of seconds\n";
    return 2;
  }
  return RUN_ALL_TESTS();
}
