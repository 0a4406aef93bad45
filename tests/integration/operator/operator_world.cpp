#include "operator_world.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "deadline_scale.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/json.hpp"
#include "dha/testing/real_kube_skip.hpp"
#include "scenario_cleanup.hpp"

namespace dha::optest {
namespace {

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

kube::Config config_for(const testing::TestCluster& cluster, const std::string& identity) {
  kube::ConfigFlags flags;
  flags.kubeconfig = cluster.kubeconfig(identity);
  return kube::Config::load(flags);
}

std::string service_account_name(const char* username) {
  const std::string u = username;
  return u.substr(u.rfind(':') + 1);
}

}  // namespace

const char* operator_username(char which) { return which == 'a' ? kOperatorA : which == 'b' ? kOperatorB : kOperatorC; }

void OperatorWorld::SetUp() {
  char tmpl[] = "/tmp/dha-operator-test-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  dir_ = tmpl;

  testing::TestClusterOptions o;
  o.identities["operator-a"] = testing::service_account(kReleaseNamespace, service_account_name(kOperatorA));
  o.identities["operator-b"] = testing::service_account(kReleaseNamespace, service_account_name(kOperatorB));
  o.identities["operator-c"] = testing::service_account(kReleaseNamespace, service_account_name(kOperatorC));
  o.identities["tenant"] = {"tenant-user", {"system:authenticated"}, "uid-t"};
  o.identities["scraper"] = {"vmagent-scraper", {"system:authenticated"}, "uid-s"};
  o.identities["apps"] = testing::service_account("cozy-system", "cozystack-api");  // the apps API
  // A tenant who may read DHAs but not list Events: the embedded server refuses that list as
  // RBAC does; on the real server it is the only grant the user has (apply_real_rbac).
  o.identities["reader"] = {"dha-reader", {"system:authenticated"}, "uid-r"};
  o.embedded.denied = {{"dha-reader", "list", "events", ""}, {"dha-reader", "watch", "events", ""}};
  o.embedded.sar_allowed_users = {"vmagent-scraper"};
  o.crd_paths = {std::string(DHA_SOURCE_DIR) + "/sdk/testing/crds",
                 std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
  o.backend = testing::kube_backend_from_environment();
  o.real_apiserver_args = real_apiserver_args_;
  if (o.backend == testing::KubeBackend::real) {
    const std::string missing = testing::real_kube_unavailable_reason();
    if (!missing.empty()) {
      if (!testing::real_kube_may_be_skipped()) FAIL() << missing;
      GTEST_SKIP() << missing;
    }
  }
  if (o.backend == testing::KubeBackend::real) {
    const bool shared = testing::process_test_cluster_started();
    cluster_ = &testing::process_test_cluster(o);
    if (shared) clear_scenario_objects(*cluster_);
  } else {
    own_cluster_ = testing::start_test_cluster(o);
    cluster_ = own_cluster_.get();
  }
  vm_ = std::make_unique<testing::VictoriaMetrics>();
  admin_ = std::make_unique<kube::Client>(config_for(*cluster_, "admin"));
  create_namespace_if_missing(
      *cluster_,
      fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})", kReleaseNamespace));
  if (cluster_->backend() == testing::KubeBackend::real) apply_real_rbac();

  // The tenant namespace points at its monitoring namespace, as on the platform.
  create_namespace_if_missing(*cluster_,
                              fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}",)"
                                          R"("labels":{{"namespace.cozystack.io/monitoring":"tenant-root"}}}}}})",
                                          kNamespace));
  // What the test sees in the audit is this test's (a shared control plane has earlier ones').
  if (cluster_->backend() == testing::KubeBackend::real) cluster_->clear_audit();
  {
    std::ofstream config(dir_ + "/plugin-config.json");
    config << R"({"metrics-vm": {"url": ")" << vm_->url() << R"(", "timeoutSeconds": 2}})";
  }
  metrics_port_a_ = testing::free_loopback_port();
  metrics_port_b_ = testing::free_loopback_port();
  metrics_port_c_ = testing::free_loopback_port();
  converger_ = std::thread([this] { converge_loop(); });
}

void OperatorWorld::TearDown() {
  stop_ = true;
  if (converger_.joinable()) converger_.join();
  for (auto& op : operators_) {
    op->stop();
    if (HasFailure()) std::cerr << "---- operator log " << op->log_path() << " ----\n" << op->log() << "\n";
  }
  if (cluster_ && cluster_->backend() == testing::KubeBackend::real) fail_on_operator_403s();
  operators_.clear();
  vm_.reset();
  admin_.reset();
  cluster_ = nullptr;
  own_cluster_.reset();
  if (!HasFailure()) std::filesystem::remove_all(dir_);
}

OperatorProcess& OperatorWorld::start_operator(char which, std::map<std::string, std::string> flags,
                                               std::vector<std::string> extra) {
  const std::string kubeconfig = cluster_->kubeconfig(std::string("operator-") + which);
  std::map<std::string, std::string> defaults{
      {"--kubeconfig", kubeconfig},
      {"--plugins", "postgres,metrics-vm"},
      {"--plugin-config", dir_ + "/plugin-config.json"},
      {"--sync-period", "1s"},
      {"--enable-webhook", "false"},
      {"--health-probe-bind-address", "127.0.0.1:0"},
      {"--metrics-bind-address", fmt::format("127.0.0.1:{}", metrics_port(which))},
      {"--metrics-secure", "false"},
      {"--operator-username", operator_username(which)},
      {"--log-format", "text"},
      {"--log-level", "debug"}};
  for (auto& [flag, value] : flags) defaults[flag] = value;
  std::vector<std::string> args{"run", "--plugin-dir", DHA_POSTGRES_PLUGIN_DIR, "--plugin-dir",
                                DHA_METRICS_VM_PLUGIN_DIR};
  for (auto& [flag, value] : defaults) args.push_back(flag + "=" + value);
  for (auto& e : extra) args.push_back(std::move(e));
  const std::string log = dir_ + "/operator-" + std::string(1, which) + ".log";
  operators_.push_back(std::make_unique<OperatorProcess>(std::move(args), log));
  return *operators_.back();
}

std::string OperatorWorld::metrics_text(char which) {
  auto r = testing::http_request("GET", fmt::format("http://127.0.0.1:{}/metrics", metrics_port(which)), {}, 2s);
  return r.status == 200 ? r.body : std::string();
}

kube::ResourceRef OperatorWorld::postgres_ref() const {
  return {"apps.cozystack.io", "v1alpha1", "postgreses", kNamespace, kApp};
}

kube::ResourceRef OperatorWorld::monitor_ref() const {
  return {"cozystack.io", "v1alpha1", "workloadmonitors", kNamespace, std::string("postgres-") + kApp};
}

void OperatorWorld::create_postgres(int replicas, int max_sync_replicas, const std::string& preset) {
  admin_->create(postgres_ref().collection(),
                 kube::parse_json(fmt::format(
                     R"({{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{{"name":"{}",)"
                     R"("namespace":"{}"}},"spec":{{"replicas":{},"resourcesPreset":"{}","size":"10Gi",)"
                     R"("quorum":{{"minSyncReplicas":0,"maxSyncReplicas":{}}}}}}})",
                     kApp, kNamespace, replicas, preset, max_sync_replicas)));
}

void OperatorWorld::create_workload_monitor(int available, bool operational) {
  admin_->create(
      monitor_ref().collection(),
      kube::parse_json(fmt::format(
          R"({{"apiVersion":"cozystack.io/v1alpha1","kind":"WorkloadMonitor","metadata":{{"name":"postgres-{}",)"
          R"("namespace":"{}"}},"spec":{{"kind":"postgres","type":"postgres","minReplicas":1}}}})",
          kApp, kNamespace)));
  set_health(available, operational);
}

void OperatorWorld::set_health(int available, bool operational) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto wm = admin_->get(monitor_ref());
    auto& a = wm.GetAllocator();
    wm.RemoveMember("status");
    rapidjson::Value status(rapidjson::kObjectType);
    status.AddMember("operational", operational, a);
    status.AddMember("availableReplicas", available, a);
    status.AddMember("observedReplicas", available, a);
    wm.AddMember("status", status, a);
    try {
      admin_->update_status(monitor_ref(), wm);
      return;
    } catch (const kube::ApiError& e) {
      if (!kube::is_conflict(e)) throw;
    }
  }
  throw std::runtime_error("set_health: persistent conflicts");
}

void OperatorWorld::converge_loop() {
  while (!stop_) {
    std::this_thread::sleep_for(200ms);
    if (!auto_converge_) continue;
    try {
      const int want = replicas();
      auto wm = admin_->get_if_exists(monitor_ref());
      if (!wm) continue;
      const auto* avail = kube::find_path(*wm, {"status", "availableReplicas"});
      if (avail == nullptr || !avail->IsInt() || avail->GetInt() != want) set_health(want, true);
    } catch (const std::exception&) {
      // The world is being torn down or the object is not there yet.
    }
  }
}

void OperatorWorld::create_dha(const DhaOptions& o) {
  admin_->create(kube::resources::dhas(kNamespace),
                 kube::parse_json(fmt::format(
                     R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                     R"("metadata":{{"name":"{}","namespace":"{}"}},)"
                     R"("spec":{{"targetRef":{{"apiGroup":"{}","kind":"{}","name":"{}"}},)"
                     R"("minReplicas":{},"maxReplicas":{},)"
                     R"("metrics":[{{"type":"ReadConnections","target":{{"averageValue":"{}"}}}}],)"
                     R"("behavior":{{"scaleUp":{{"stabilizationWindowSeconds":{},"step":{}}},)"
                     R"("scaleDown":{{"stabilizationWindowSeconds":{},"step":{}}},"convergenceDeadlineSeconds":{},)"
                     R"("immediateFirstDecision":{}}},)"
                     R"("constraints":{{"respectQuorum":true,"maxReplicationLagSeconds":{}}},"dryRun":{}}}}})",
                     kDha, kNamespace, o.api_group, o.kind, kApp, o.min, o.max, o.target, o.up_window, o.up_step,
                     o.down_window, o.down_step, o.deadline, o.immediate_first_decision ? "true" : "false", o.max_lag,
                     o.dry_run ? "true" : "false")));
}

void OperatorWorld::set_load(double connections) {
  const auto ts = now_ms();
  vm_->import_prometheus(fmt::format(
      "cnpg_backends_total{{namespace=\"{0}\",pod=\"db-2\",state=\"active\"}} {1} {2}\n"
      "kube_pod_labels{{namespace=\"{0}\",pod=\"db-2\",label_apps_cozystack_io_application_name=\"{3}\","
      "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"replica\"}} 1 {2}\n"
      "kube_pod_labels{{namespace=\"{0}\",pod=\"db-1\",label_apps_cozystack_io_application_name=\"{3}\","
      "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"primary\"}} 1 {2}\n",
      kNamespace, connections, ts, kApp));
}

void OperatorWorld::set_lag(double seconds, bool writes) {
  const auto ts = now_ms();
  vm_->import_prometheus(
      fmt::format("cnpg_pg_replication_lag{{namespace=\"{0}\",pod=\"db-2\"}} {1} {2}\n"
                  "cnpg_collector_wal_bytes{{namespace=\"{0}\",pod=\"db-1\"}} 1000 {3}\n"
                  "cnpg_collector_wal_bytes{{namespace=\"{0}\",pod=\"db-1\"}} {4} {2}\n",
                  kNamespace, seconds, ts, ts - 30000, writes ? 5000000 : 1000));
}

void OperatorWorld::create_quota(const std::string& hard_cpu, const std::string& used_cpu) {
  const kube::ResourceRef ref = kube::resources::resource_quotas(kNamespace).named("tenant-quota");
  admin_->create(
      ref.collection(),
      kube::parse_json(fmt::format(
          R"({{"apiVersion":"v1","kind":"ResourceQuota","metadata":{{"name":"tenant-quota","namespace":"{}"}},)"
          R"("spec":{{"hard":{{"requests.cpu":"{}"}}}}}})",
          kNamespace, hard_cpu)));
  quota_hard_ = hard_cpu;
  set_quota_used(used_cpu);
}

void OperatorWorld::set_quota_used(const std::string& used_cpu) {
  // The quota controller fills status; here the test does.
  const kube::ResourceRef ref = kube::resources::resource_quotas(kNamespace).named("tenant-quota");
  auto q = admin_->get(ref);
  auto& a = q.GetAllocator();
  q.RemoveMember("status");
  rapidjson::Document status = kube::parse_json(
      fmt::format(R"({{"hard":{{"requests.cpu":"{}"}},"used":{{"requests.cpu":"{}"}}}})", quota_hard_, used_cpu));
  rapidjson::Value copy(status, a);
  q.AddMember("status", copy, a);
  admin_->update_status(ref, q);
}

void OperatorWorld::grant_helmrelease_editing(const std::string& subjects_json) {
  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/";
  const auto role =
      cluster_->request("admin", "POST", rbac + "clusterroles",
                        R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",)"
                        R"("metadata":{"name":"test:helmreleases"},)"
                        R"("rules":[{"apiGroups":["helm.toolkit.fluxcd.io"],"resources":["helmreleases"],)"
                        R"("verbs":["get","list","patch","update"]}]})");
  ASSERT_EQ(role.status, 201) << role.body;
  const auto binding = cluster_->request(
      "admin", "POST", rbac + "clusterrolebindings",
      fmt::format(
          R"({{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",)"
          R"("metadata":{{"name":"test:helmreleases"}},)"
          R"("roleRef":{{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"test:helmreleases"}},)"
          R"("subjects":[{}]}})",
          subjects_json));
  ASSERT_EQ(binding.status, 201) << binding.body;
}

bool OperatorWorld::listening_on_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

void OperatorWorld::create_managed_helmrelease() {
  const auto created = cluster_->request(
      "admin", "POST", "/apis/helm.toolkit.fluxcd.io/v2/namespaces/tenant-a/helmreleases",
      R"({"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"postgres-db",)"
      R"("namespace":"tenant-a",)"
      R"("annotations":{"apps.cozystack.io-autoscaling.cozystack.io/managed-by":"db"}},)"
      R"("spec":{"interval":"5m","chart":{"spec":{"chart":"postgres"}},"values":{"replicas":3,"size":"10Gi"}}})");
  ASSERT_EQ(created.status, 201) << created.body;
}

void OperatorWorld::set_replicas_as(const std::string& identity, int replicas) {
  kube::Client client(config_for(*cluster_, identity));
  client.merge_patch(postgres_ref(), fmt::format(R"({{"spec":{{"replicas":{}}}}})", replicas));
}

int OperatorWorld::replicas() {
  auto pg = admin_->get(postgres_ref());
  const auto* r = kube::find_path(pg, {"spec", "replicas"});
  return r != nullptr && r->IsInt() ? r->GetInt() : -1;
}

std::string OperatorWorld::marker() {
  auto pg = admin_->get(postgres_ref());
  const auto* annotations = kube::find_path(pg, {"metadata", "annotations"});
  if (annotations == nullptr || !annotations->IsObject()) return {};
  auto it = annotations->FindMember("autoscaling.cozystack.io/managed-by");
  return it == annotations->MemberEnd() ? std::string() : std::string(it->value.GetString());
}

rapidjson::Document OperatorWorld::dha() { return admin_->get(kube::resources::dhas(kNamespace).named(kDha)); }

std::optional<rapidjson::Document> OperatorWorld::dha_if_exists() {
  return admin_->get_if_exists(kube::resources::dhas(kNamespace).named(kDha));
}

std::string OperatorWorld::condition(const std::string& type, const char* field) {
  return condition_of(dha(), type, field);
}

int OperatorWorld::status_int(const char* field) { return status_int_of(dha(), field); }

std::string OperatorWorld::condition_of(const rapidjson::Value& dha, const std::string& type, const char* field) {
  const auto* conds = kube::find_path(dha, {"status", "conditions"});
  if (conds == nullptr || !conds->IsArray()) return {};
  for (const auto& c : conds->GetArray())
    if (kube::string_at(c, {"type"}) == type) return kube::string_at(c, {field});
  return {};
}

int OperatorWorld::status_int_of(const rapidjson::Value& dha, const char* field) {
  const auto* v = kube::find_path(dha, {"status", field});
  return v != nullptr && v->IsInt() ? v->GetInt() : -1;
}

std::string OperatorWorld::gate_line_of(const rapidjson::Value& dha, const std::string& gate) {
  const auto* gates = kube::find_path(dha, {"status", "lastDecision", "gates"});
  if (gates == nullptr || !gates->IsArray()) return {};
  const std::string prefix = gate + ": ";
  for (const auto& line : gates->GetArray())
    if (line.IsString() && std::string(line.GetString()).rfind(prefix, 0) == 0) return line.GetString();
  return {};
}

bool OperatorWorld::recommends(const rapidjson::Value& dha, int replicas) {
  const auto* recs = kube::find_path(dha, {"status", "recommendations"});
  if (recs == nullptr || !recs->IsArray()) return false;
  for (const auto& r : recs->GetArray())
    if (const auto* n = kube::find_path(r, {"replicas"}); n != nullptr && n->IsInt() && n->GetInt() == replicas)
      return true;
  return false;
}

OperatorWorld::DhaRead OperatorWorld::wait_for_dha(const std::function<bool(const rapidjson::Value& dha)>& done,
                                                   std::chrono::milliseconds timeout) {
  DhaRead read;
  read.reached = eventually(
      [&] {
        read.dha = dha();
        return done(read.dha);
      },
      timeout);
  return read;
}

std::string OperatorWorld::DhaRead::describe() const {
  if (!dha.IsObject()) return "the DHA was never read";
  std::string out = fmt::format("currentReplicas {}, desiredReplicas {}", status_int_of(dha, "currentReplicas"),
                                status_int_of(dha, "desiredReplicas"));
  if (const auto* conds = kube::find_path(dha, {"status", "conditions"}); conds != nullptr && conds->IsArray())
    for (const auto& c : conds->GetArray())
      out += fmt::format("; {}={}/{} \"{}\"", kube::string_at(c, {"type"}), kube::string_at(c, {"status"}),
                         kube::string_at(c, {"reason"}), kube::string_at(c, {"message"}));
  out += fmt::format("; lastDecision {} {}", kube::string_at(dha, {"status", "lastDecision", "kind"}),
                     kube::string_at(dha, {"status", "lastDecision", "reason"}));
  if (const auto* gates = kube::find_path(dha, {"status", "lastDecision", "gates"});
      gates != nullptr && gates->IsArray())
    for (const auto& line : gates->GetArray())
      if (line.IsString()) out += fmt::format("\n  {}", line.GetString());
  return out;
}

std::vector<std::string> OperatorWorld::events(const std::string& reason) {
  std::vector<std::string> out;
  auto page = admin_->list_all(kube::resources::events(kNamespace));
  for (const auto& e : page.list["items"].GetArray())
    if (kube::string_at(e, {"involvedObject", "name"}) == kDha && kube::string_at(e, {"reason"}) == reason)
      out.push_back(kube::string_at(e, {"message"}));
  return out;
}

std::vector<testing::AuditEntry> OperatorWorld::target_patches() {
  std::vector<testing::AuditEntry> out;
  const std::string path = kube::resource_path(postgres_ref());
  for (auto& e : cluster_->audit())
    if (e.method == "PATCH" && e.path == path && e.status < 300) out.push_back(e);
  return out;
}

bool OperatorWorld::eventually(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + testsupport::scaled_deadline(timeout);
  while (true) {
    try {
      if (done()) return true;
    } catch (const std::exception&) {
      // Not there yet (an object not created yet, a server restarting): keep polling.
    }
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
}

bool OperatorWorld::holds_for(const std::function<bool()>& ok, std::chrono::milliseconds period) {
  const auto deadline = std::chrono::steady_clock::now() + period;
  while (std::chrono::steady_clock::now() < deadline) {
    if (!ok()) return false;
    std::this_thread::sleep_for(100ms);
  }
  return ok();
}

void OperatorWorld::apply_real_rbac() {
  // Rendered for the plugins the operator here loads (postgres, metrics-vm): the chart grants the
  // Application kinds of the enabled adapters only. Once per test process and set of a
  // fixture's arguments: it takes seconds.
  static std::map<std::vector<std::string>, std::string> rendered;
  if (rendered.count(chart_args_) == 0) {
    std::vector<std::string> args{"-f", std::string(DHA_SOURCE_DIR) + "/tests/chart/values/plugins-selection.yaml"};
    args.insert(args.end(), chart_args_.begin(), chart_args_.end());
    rendered[chart_args_] = render_chart(args);
  }
  chart_grants_ = apply_chart_rbac(*cluster_, rendered[chart_args_],
                                   {{kReleaseNamespace, service_account_name(kOperatorA)},
                                    {kReleaseNamespace, service_account_name(kOperatorB)},
                                    {kReleaseNamespace, service_account_name(kOperatorC)}});
  // Not the chart's business: the tenant owns its databases, a reader may read DHAs only, and a
  // scraper is bound to the chart's metrics-reader role as its values.metrics.readers would bind
  // vmagent.
  const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/";
  const std::vector<std::pair<std::string, std::string>> objects{
      {rbac + "clusterroles",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",)"
       R"("metadata":{"name":"test:tenant-databases"},)"
       R"("rules":[{"apiGroups":["apps.cozystack.io"],"resources":["postgreses"],"verbs":["get","list","watch",)"
       R"("patch","update"]}]})"},
      {rbac + "clusterrolebindings",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",)"
       R"("metadata":{"name":"test:tenant-databases"},)"
       R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"test:tenant-databases"},)"
       R"("subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"tenant-user"}]})"},
      {rbac + "clusterroles",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",)"
       R"("metadata":{"name":"test:dha-reader"},)"
       R"("rules":[{"apiGroups":["autoscaling.cozystack.io"],"resources":["databasehorizontalautoscalers"],)"
       R"("verbs":["get","list"]}]})"},
      {rbac + "clusterrolebindings",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",)"
       R"("metadata":{"name":"test:dha-reader"},)"
       R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"test:dha-reader"},)"
       R"("subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"dha-reader"}]})"},
      {rbac + "clusterrolebindings",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"test:scraper"},)"
       R"("roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole",)"
       R"("name":"autoscaling.cozystack.io:db-autoscaler:metrics-reader"},)"
       R"("subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"vmagent-scraper"}]})"}};
  for (const auto& [path, body] : objects) {
    const auto r = cluster_->request("admin", "POST", path, body);
    // 409: an earlier test on this control plane made it (no test changes these).
    ASSERT_TRUE(r.status == 201 || r.status == 409) << path << ": " << r.status << " " << r.body << r.error;
  }
}

std::vector<std::string> OperatorWorld::operator_403s() {
  std::vector<std::string> out;
  for (const auto& e : cluster_->audit()) {
    if ((e.username == kOperatorA || e.username == kOperatorB || e.username == kOperatorC) && e.status == 403 &&
        expected_refusals_.count(e.method + " " + e.path) == 0) {
      const Grant g = grant_of(e);
      out.push_back(g.verb + " " + g.resource + (g.group.empty() ? "" : "." + g.group) + " (" + e.method + " " +
                    e.path + (e.query.empty() ? "" : "?" + e.query) + ")");
    }
  }
  return out;
}

void OperatorWorld::fail_on_operator_403s() {
  if (expect_403s_) return;
  for (const auto& refused : operator_403s()) ADD_FAILURE() << "the chart's RBAC refused the operator: " << refused;
}

}  // namespace dha::optest
