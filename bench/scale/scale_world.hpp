#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dha/kube/client.hpp"
#include "dha/testing/victoria_metrics.hpp"

// The world the scale benchmark reconciles: N Postgres applications spread over tenant
// namespaces, each with its WorkloadMonitor (health object), a DHA, and exporter series in
// VictoriaMetrics; one ResourceQuota per namespace (roomy, so it never limits).
namespace dha::scalebench {

struct App {
  std::string ns;
  std::string name;  // the Postgres application; DHA "<name>-dha", WorkloadMonitor "postgres-<name>"
};

// Steady state: 3 instances (primary + 2 read replicas), 200 read connections at a target of
// 100 per replica, so the decision is "hold" until the benchmark raises a sample's load.
inline constexpr int kInitialReplicas = 3;
inline constexpr double kSteadyLoad = 200;
inline constexpr double kRaisedLoad = 400;  // raw 5 → one scale-up step to 4

std::vector<App> plan_apps(int n, int namespaces);
std::vector<std::string> namespaces_of(const std::vector<App>& apps);

// What a tenant may add to each DHA's metadata, to measure what it costs the operator: one
// annotation of `annotation_bytes` bytes and `finalizers` finalizers of its own.
struct DhaPadding {
  std::size_t annotation_bytes = 0;
  int finalizers = 0;
};

// Creates the namespaces, quotas, applications, monitors (with status) and DHAs using
// `threads` parallel clients built from `config`. Throws on the first failure.
void create_world(const kube::Config& config, const std::vector<App>& apps, int threads,
                  const DhaPadding& padding = {});

// Exposition text for every app's series at `timestamp_ms` (load per app from `load`).
std::string series_for(const std::vector<App>& apps, const std::vector<double>& load, std::int64_t timestamp_ms);

std::int64_t now_ms();

}  // namespace dha::scalebench
