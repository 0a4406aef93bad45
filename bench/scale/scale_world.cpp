#include "scale_world.hpp"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "dha/kube/json.hpp"
#include "dha/kube/resource.hpp"

namespace dha::scalebench {
namespace {

kube::ResourceRef postgreses(const std::string& ns) { return {"apps.cozystack.io", "v1alpha1", "postgreses", ns, {}}; }
kube::ResourceRef monitors(const std::string& ns) { return {"cozystack.io", "v1alpha1", "workloadmonitors", ns, {}}; }

void create_namespace(kube::Client& c, const std::string& ns) {
  c.create(kube::resources::namespaces(),
           kube::parse_json(fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}",)"
                                        R"("labels":{{"namespace.cozystack.io/monitoring":"tenant-root"}}}}}})",
                                        ns)));
  const auto quota = kube::resources::resource_quotas(ns).named("tenant-quota");
  c.create(quota.collection(),
           kube::parse_json(fmt::format(
               R"({{"apiVersion":"v1","kind":"ResourceQuota","metadata":{{"name":"tenant-quota","namespace":"{}"}},)"
               R"("spec":{{"hard":{{"requests.cpu":"1000"}}}}}})",
               ns)));
}

void create_app(kube::Client& c, const App& app, const DhaPadding& padding) {
  c.create(
      postgreses(app.ns),
      kube::parse_json(fmt::format(
          R"({{"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{{"name":"{}","namespace":"{}"}},)"
          R"("spec":{{"replicas":{},"resourcesPreset":"t1.micro","size":"10Gi",)"
          R"("quorum":{{"minSyncReplicas":0,"maxSyncReplicas":0}}}}}})",
          app.name, app.ns, kInitialReplicas)));
  auto monitor = c.create(
      monitors(app.ns),
      kube::parse_json(fmt::format(
          R"({{"apiVersion":"cozystack.io/v1alpha1","kind":"WorkloadMonitor","metadata":{{"name":"postgres-{}","namespace":"{}"}},)"
          R"("spec":{{"kind":"postgres","type":"postgres","minReplicas":1}}}})",
          app.name, app.ns)));
  auto& a = monitor.GetAllocator();
  monitor.RemoveMember("status");
  rapidjson::Value status(rapidjson::kObjectType);
  status.AddMember("operational", true, a);
  status.AddMember("availableReplicas", kInitialReplicas, a);
  status.AddMember("observedReplicas", kInitialReplicas, a);
  monitor.AddMember("status", status, a);
  c.update_status(monitors(app.ns).named("postgres-" + app.name), monitor);
  auto dha = kube::parse_json(
      fmt::format(R"({{"apiVersion":"autoscaling.cozystack.io/v1alpha1","kind":"DatabaseHorizontalAutoscaler",)"
                  R"("metadata":{{"name":"{0}-dha","namespace":"{1}"}},)"
                  R"("spec":{{"targetRef":{{"apiGroup":"apps.cozystack.io","kind":"Postgres","name":"{0}"}},)"
                  R"("minReplicas":2,"maxReplicas":6,)"
                  R"("metrics":[{{"type":"ReadConnections","target":{{"averageValue":"100"}}}}],)"
                  R"("behavior":{{"scaleUp":{{"stabilizationWindowSeconds":0,"step":1}},)"
                  R"("scaleDown":{{"stabilizationWindowSeconds":600,"step":1}},"convergenceDeadlineSeconds":600}},)"
                  R"("constraints":{{"respectQuorum":true,"maxReplicationLagSeconds":30}}}}}})",
                  app.name, app.ns));
  auto& meta = dha["metadata"];
  auto& da = dha.GetAllocator();
  if (padding.annotation_bytes > 0) {
    rapidjson::Value annotations(rapidjson::kObjectType);
    const std::string text(padding.annotation_bytes, 'a');
    annotations.AddMember("tenant.example/padding",
                          rapidjson::Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), da), da);
    meta.AddMember("annotations", annotations, da);
  }
  if (padding.finalizers > 0) {
    rapidjson::Value finalizers(rapidjson::kArrayType);
    for (int f = 0; f < padding.finalizers; ++f) {
      const std::string name = fmt::format("tenant.example/finalizer-{}", f);
      finalizers.PushBack(rapidjson::Value(name.c_str(), static_cast<rapidjson::SizeType>(name.size()), da), da);
    }
    meta.AddMember("finalizers", finalizers, da);
  }
  c.create(kube::resources::dhas(app.ns), dha);
}

// Runs `work(client, i)` for i in [0, count) on `threads` threads; rethrows the first failure.
template <typename Work>
void parallel(const kube::Config& config, std::size_t count, int threads, Work work) {
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr failure;
  std::vector<std::thread> pool;
  for (int t = 0; t < std::max(1, threads); ++t) {
    pool.emplace_back([&] {
      kube::Client client(config);
      for (std::size_t i = next++; i < count; i = next++) {
        try {
          work(client, i);
        } catch (...) {
          std::lock_guard lock(mu);
          if (!failure) failure = std::current_exception();
          next = count;
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<App> plan_apps(int n, int namespaces) {
  if (n <= 0 || namespaces <= 0) throw std::invalid_argument("N and the namespace count must be positive");
  std::vector<App> apps;
  apps.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) apps.push_back({fmt::format("tenant-{:04}", i % namespaces), fmt::format("pg-{:05}", i)});
  return apps;
}

std::vector<std::string> namespaces_of(const std::vector<App>& apps) {
  std::set<std::string> seen;
  for (const auto& a : apps) seen.insert(a.ns);
  return {seen.begin(), seen.end()};
}

void create_world(const kube::Config& config, const std::vector<App>& apps, int threads, const DhaPadding& padding) {
  const auto namespaces = namespaces_of(apps);
  parallel(config, namespaces.size(), threads,
           [&](kube::Client& c, std::size_t i) { create_namespace(c, namespaces[i]); });
  parallel(config, apps.size(), threads, [&](kube::Client& c, std::size_t i) { create_app(c, apps[i], padding); });
}

std::string series_for(const std::vector<App>& apps, const std::vector<double>& load, std::int64_t ts) {
  std::string out;
  out.reserve(apps.size() * 900);
  for (std::size_t i = 0; i < apps.size(); ++i) {
    const auto& [ns, app] = apps[i];
    fmt::format_to(
        std::back_inserter(out),
        "cnpg_backends_total{{namespace=\"{0}\",pod=\"{1}-2\",state=\"active\"}} {2} {3}\n"
        "kube_pod_labels{{namespace=\"{0}\",pod=\"{1}-2\",label_apps_cozystack_io_application_name=\"{1}\","
        "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"replica\"}} 1 {3}\n"
        "kube_pod_labels{{namespace=\"{0}\",pod=\"{1}-1\",label_apps_cozystack_io_application_name=\"{1}\","
        "label_apps_cozystack_io_application_kind=\"Postgres\",label_cnpg_io_instance_role=\"primary\"}} 1 {3}\n"
        "cnpg_pg_replication_lag{{namespace=\"{0}\",pod=\"{1}-2\"}} 0 {3}\n"
        "cnpg_collector_wal_bytes{{namespace=\"{0}\",pod=\"{1}-1\"}} 1000 {3}\n",
        ns, app, load[i], ts);
  }
  return out;
}

}  // namespace dha::scalebench
