// The scale benchmark: N Postgres applications with N DHAs in the embedded API
// server (this process) and a real VictoriaMetrics, reconciled by the real `db-autoscaler run`
// (one process, or K with --shards K) pinned to one CPU. Prints one markdown table row (see
// README.md for the columns).
//
//   scale_bench --n 1000 [--namespaces 100] [--sync-period 60] [--operator-cpu 1] [--sample 20] [--shards 2]
//
// Phases: build the world → start the operator(s) → wait until every DHA has been reconciled once
// (first pass) → measure one steady sync period (API requests, metric queries, CPU) while the
// load of a sample of DHAs rises → wait for the sample's scale-up PATCHes (end-to-end latency).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <unistd.h>

#include "dha/kube/config.hpp"
#include "dha/kube/informer.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/resource.hpp"
#include "dha/testing/api_server.hpp"
#include "dha/testing/child_process.hpp"
#include "dha/testing/victoria_metrics.hpp"
#include "operator_fleet.hpp"
#include "operator_probe.hpp"
#include "scale_world.hpp"

namespace sb = dha::scalebench;
namespace kube = dha::kube;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int n = 100;
  int namespaces = 0;  // 0 = N/10 (at least 1): ten databases per tenant
  int sync_period = 60;
  int operator_cpu = 1;
  int sample = 20;
  int create_threads = 2;
  int shards = 1;
  bool leader_elect = false;
  std::size_t watch_history = 0;  // 0 = max(100 000, 3·N)
  std::string binary = DHA_BINARY;
  std::string log_level = "info";
  std::string work_dir;
  std::vector<std::string> operator_env;    // extra NAME=VALUE for the operator (experiments)
  std::vector<std::string> operator_flags;  // extra flags for every operator process (experiments)
  double first_pass_timeout = 600;
  std::size_t dha_annotation_bytes = 0;  // a tenant's metadata on each DHA (bench/abuse: DHA cache)
  int dha_finalizers = 0;
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

kube::Config config_for(const dha::testing::ApiServer& api, const std::string& dir, const std::string& token) {
  const std::string path = dir + "/kubeconfig-" + token;
  api.write_kubeconfig(path, token);
  kube::ConfigFlags flags;
  flags.kubeconfig = path;
  flags.qps = 0;  // the benchmark's own client: no client-side rate limit
  return kube::Config::load(flags);
}

// "VERB resource[/subresource]" of an API path, e.g. "GET workloadmonitors", "LIST resourcequotas",
// "PUT databasehorizontalautoscalers/status".
std::string request_kind(const std::string& method, const std::string& path) {
  std::vector<std::string> seg;
  for (std::size_t pos = 1; pos <= path.size();) {
    auto end = path.find('/', pos);
    if (end == std::string::npos) end = path.size();
    seg.push_back(path.substr(pos, end - pos));
    pos = end + 1;
  }
  const std::size_t skip = !seg.empty() && seg[0] == "api" ? 2 : 3;  // api/v1 | apis/group/version
  std::vector<std::string> rest(seg.begin() + static_cast<std::ptrdiff_t>(std::min(skip, seg.size())), seg.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") rest.erase(rest.begin(), rest.begin() + 2);
  if (rest.empty()) return method + " " + path;
  std::string verb = method == "GET" && rest.size() == 1 ? "LIST" : method;
  return verb + " " + rest[0] + (rest.size() >= 3 ? "/" + rest[2] : "");
}

// Requests of `users` in the audit log from index `from`, by kind, leaving out watches
// (long-lived streams, not per-cycle work).
std::map<std::string, int> operator_requests(const std::vector<dha::testing::AuditEntry>& audit, std::size_t from,
                                             const std::set<std::string>& users) {
  std::map<std::string, int> by_kind;
  for (std::size_t i = from; i < audit.size(); ++i) {
    const auto& e = audit[i];
    if (users.count(e.username) == 0 || e.query.find("watch=") != std::string::npos) continue;
    ++by_kind[request_kind(e.method, e.path)];
  }
  return by_kind;
}

int total_of(const std::map<std::string, int>& by_kind) {
  return std::accumulate(by_kind.begin(), by_kind.end(), 0, [](int s, const auto& v) { return s + v.second; });
}

double vm_queries(const dha::testing::VictoriaMetrics& vm) {
  auto r = dha::testing::http_request("GET", fmt::format("http://127.0.0.1:{}/metrics", vm.port()), {}, 10s);
  return sb::metric_sum(r.body, "vm_http_requests_total", "path=\"/api/v1/query\"");
}

// Re-imports every series periodically, as exporters scraped by vmagent would, so no series
// goes stale during a long run. The load vector can change between rounds.
class SeriesPusher {
 public:
  SeriesPusher(dha::testing::VictoriaMetrics& vm, const std::vector<sb::App>& apps)
      : vm_(vm), apps_(apps), load_(apps.size(), sb::kSteadyLoad) {}
  ~SeriesPusher() { stop(); }
  // In requests of kChunk applications (~4 MiB): one request of all 50 000 (~45 MiB) timed out
  // against a VictoriaMetrics sharing a saturated CPU.
  void push_now() {
    std::lock_guard lock(mu_);
    const auto ts = sb::now_ms();
    for (std::size_t from = 0; from < apps_.size(); from += kChunk) {
      const std::size_t to = std::min(apps_.size(), from + kChunk);
      const std::vector<sb::App> apps(apps_.begin() + static_cast<std::ptrdiff_t>(from),
                                      apps_.begin() + static_cast<std::ptrdiff_t>(to));
      const std::vector<double> load(load_.begin() + static_cast<std::ptrdiff_t>(from),
                                     load_.begin() + static_cast<std::ptrdiff_t>(to));
      vm_.import_prometheus(sb::series_for(apps, load, ts));
    }
  }
  // Only the applications in `indices`: one small request, so a load change becomes visible at
  // one moment rather than chunk by chunk.
  void push_only(const std::vector<std::size_t>& indices) {
    std::lock_guard lock(mu_);
    std::vector<sb::App> apps;
    std::vector<double> load;
    for (auto i : indices) {
      apps.push_back(apps_[i]);
      load.push_back(load_[i]);
    }
    vm_.import_prometheus(sb::series_for(apps, load, sb::now_ms()));
  }
  void set_load(std::size_t i, double value) {
    std::lock_guard lock(mu_);
    load_[i] = value;
  }
  void start() {
    thread_ = std::thread([this] {
      std::unique_lock lock(stop_mu_);
      while (!stop_cv_.wait_for(lock, 30s, [this] { return stopping_; })) {
        try {
          push_now();
        } catch (const std::exception& e) {
          // The last round's samples are 30 s old: say so and try again at the next round.
          std::cerr << fmt::format("scale: re-import of the series failed ({} so far): {}\n", ++failures_, e.what());
        }
      }
    });
  }
  int failures() const { return failures_; }
  void stop() {
    {
      std::lock_guard lock(stop_mu_);
      stopping_ = true;
    }
    stop_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  dha::testing::VictoriaMetrics& vm_;
  const std::vector<sb::App>& apps_;
  std::vector<double> load_;
  std::mutex mu_;
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::atomic<int> failures_{0};
  std::thread thread_;
  static constexpr std::size_t kChunk = 5000;
};

std::string format_verbs(const std::map<std::string, int>& verbs, double per) {
  std::string out;
  for (const auto& [verb, count] : verbs)
    out += fmt::format("{}{} {:.2f}", out.empty() ? "" : ", ", verb, per > 0 ? count / per : 0.0);
  return out.empty() ? "0" : out;
}

// "19 × 1, 1 × 2": how many sampled DHAs got how many PATCHes of their target.
std::string format_patch_counts(const std::map<std::string, int>& patches_per_key, std::size_t sample) {
  std::map<int, int> histogram;
  for (const auto& [key, count] : patches_per_key) ++histogram[count];
  histogram[0] += static_cast<int>(sample - patches_per_key.size());
  if (histogram[0] == 0) histogram.erase(0);
  std::string out;
  for (const auto& [count, dhas] : histogram) out += fmt::format("{}{} × {}", out.empty() ? "" : ", ", dhas, count);
  return out;
}

double reconciles_of(const std::string& metrics) { return sb::metric_sum(metrics, "db_autoscaler_reconcile_total"); }

int run(const Args& args) {
  const int namespaces = args.namespaces > 0 ? args.namespaces : std::max(1, args.n / 10);
  const bool sharded = args.shards > 1;
  const std::string dir = args.work_dir.empty() ? dha::testing::make_temp_dir("dha-scale-") : args.work_dir;
  std::filesystem::create_directories(dir);
  std::cerr << fmt::format("scale: N={} namespaces={} sync={}s shards={} work dir {}\n", args.n, namespaces,
                           args.sync_period, args.shards, dir);

  dha::testing::ApiServerOptions o;
  o.tokens = sb::fleet_tokens(args.shards);
  o.tokens["admin-token"] = {"admin", {"system:masters"}, "uid-admin"};
  o.crd_dirs = {std::string(DHA_SOURCE_DIR) + "/sdk/testing/crds",
                std::string(DHA_SOURCE_DIR) + "/charts/db-autoscaler/crds"};
  // The first pass writes ~N statuses while the operator's watchers catch up: they must keep
  // up from the history, not relist.
  o.watch_history =
      args.watch_history > 0 ? args.watch_history : std::max<std::size_t>(100000, 3 * static_cast<std::size_t>(args.n));
  dha::testing::ApiServer api(o);
  api.start();
  dha::testing::VictoriaMetrics vm;
  const auto admin = config_for(api, dir, "admin-token");

  const auto apps = sb::plan_apps(args.n, namespaces);
  auto t = Clock::now();
  sb::create_world(admin, apps, args.create_threads, {args.dha_annotation_bytes, args.dha_finalizers});
  const double create_s = seconds_since(t);
  kube::Client admin_client(admin);
  if (sharded)
    admin_client.create(
        kube::resources::namespaces(),
        kube::parse_json(fmt::format(R"({{"apiVersion":"v1","kind":"Namespace","metadata":{{"name":"{}"}}}})",
                                     sb::kLeaseNamespace)));
  SeriesPusher series(vm, apps);
  series.push_now();
  vm.flush();
  series.start();
  std::cerr << fmt::format("scale: world created in {:.1f}s\n", create_s);
  api.clear_audit();

  // Watches the sample's targets: the time their spec.replicas changes is the PATCH's time.
  const std::size_t sample = std::min<std::size_t>(static_cast<std::size_t>(std::max(args.sample, 0)), apps.size());
  std::map<std::string, std::size_t> sample_index;  // "ns/name" → index in the sample
  // Spread over as many namespaces as possible: a namespace's DHAs come due together, so a
  // sample from two namespaces (what every k·N/sample-th app gave, app i being in namespace
  // i mod namespaces) measures two moments in the sync period, not twenty.
  const std::size_t per_namespace = std::max<std::size_t>(1, apps.size() / static_cast<std::size_t>(namespaces));
  for (std::size_t k = 0; k < sample; ++k) {
    const std::size_t ns = k * static_cast<std::size_t>(namespaces) / sample;
    const std::size_t i = std::min(apps.size() - 1, ns + (k % per_namespace) * static_cast<std::size_t>(namespaces));
    sample_index[apps[i].ns + "/" + apps[i].name] = i;
  }
  std::mutex patch_mu;
  std::map<std::string, Clock::time_point> patched_at;
  kube::Client watcher_client(admin);
  kube::Informer targets(watcher_client, {"apps.cozystack.io", "v1alpha1", "postgreses", {}, {}});
  targets.add_handler({nullptr,
                       [&](const kube::ObjectPtr& before, const kube::ObjectPtr& after) {
                         const std::string key = kube::key_of(*after);
                         if (sample_index.count(key) == 0) return;
                         const auto* a = kube::find_path(*before, {"spec", "replicas"});
                         const auto* b = kube::find_path(*after, {"spec", "replicas"});
                         if (a == nullptr || b == nullptr || *a == *b) return;
                         std::lock_guard lock(patch_mu);
                         patched_at.emplace(key, Clock::now());
                       },
                       nullptr});
  targets.start();
  if (!targets.wait_for_sync(60s)) throw std::runtime_error("the benchmark's own informer did not sync");
  {
    std::set<std::string> sampled_namespaces;
    for (const auto& [key, i] : sample_index) sampled_namespaces.insert(apps[i].ns);
    std::cerr << fmt::format("scale: load change sample: {} DHAs in {} namespaces\n", sample_index.size(),
                             sampled_namespaces.size());
  }

  // The operator(s), pinned to one CPU.
  {
    std::ofstream config(dir + "/plugin-config.json");
    config << R"({"metrics-vm": {"url": ")" << vm.url() << R"(", "timeoutSeconds": 5}})";
  }
  sb::FleetOptions fo;
  fo.binary = args.binary;
  fo.cpu = args.operator_cpu;
  fo.shards = args.shards;
  fo.leader_elect = args.leader_elect;
  fo.sync_period = args.sync_period;
  fo.log_level = args.log_level;
  fo.plugin_config = dir + "/plugin-config.json";
  fo.dir = dir;
  fo.env = args.operator_env;
  fo.extra_flags = args.operator_flags;
  const auto audit_at_start = api.audit().size();
  const pid_t vm_pid = sb::child_named("victoria-metric");
  const double api_cpu_at_start = sb::sample_process(getpid()).cpu_seconds;
  const double vm_cpu_at_start = vm_pid > 0 ? sb::sample_process(vm_pid).cpu_seconds : 0;
  const auto started = Clock::now();
  sb::OperatorFleet ops(api, fo);
  std::set<std::string> users;
  for (std::size_t k = 0; k < ops.size(); ++k) users.insert(ops.username(k));
  auto all_reconciles = [&] {
    std::vector<double> out;
    for (std::size_t k = 0; k < ops.size(); ++k) out.push_back(reconciles_of(ops.metrics(k)));
    return out;
  };
  auto sum = [](const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); };
  auto all_cpu = [&] {
    std::vector<double> out;
    for (std::size_t k = 0; k < ops.size(); ++k) out.push_back(sb::sample_process(ops.pid(k)).cpu_seconds);
    return out;
  };

  // First pass: every DHA has per-DHA gauges once its first reconcile finished (on whichever
  // replica holds its shard; a replica that loses a shard drops that shard's gauges).
  double first_pass_s = -1;
  std::size_t reconciled = 0;
  // A 50 000-DHA /metrics text is several MiB per replica: poll less often as N grows.
  const auto poll = std::chrono::milliseconds(std::max(500, args.n / 20));
  while (seconds_since(started) < args.first_pass_timeout) {
    std::this_thread::sleep_for(poll);
    ops.check_running();
    reconciled = ops.series_union("db_autoscaler_desired_replicas").size();
    if (reconciled >= apps.size()) {
      first_pass_s = seconds_since(started);
      break;
    }
  }
  if (first_pass_s < 0)
    throw std::runtime_error(fmt::format("first pass incomplete after {}s: {} of {} DHAs reconciled",
                                         args.first_pass_timeout, reconciled, apps.size()));
  const double first_pass_reconciles = sum(all_reconciles());
  const double first_pass_cpu = sum(all_cpu());
  const auto first_pass_verbs = operator_requests(api.audit(), audit_at_start, users);
  // Where the first pass's time went: the CPU of each side (the API server runs in this process).
  const double api_cpu = sb::sample_process(getpid()).cpu_seconds - api_cpu_at_start;
  const double vm_cpu = (vm_pid > 0 ? sb::sample_process(vm_pid).cpu_seconds : 0) - vm_cpu_at_start;
  std::cerr << fmt::format(
      "scale: first pass {:.1f}s, {} reconciles, CPU s: operator{} {:.1f}, API server + this process "
      "{:.1f}, VictoriaMetrics {:.1f}; load average {}; requests: {}\n",
      first_pass_s, first_pass_reconciles, sharded ? "s" : "", first_pass_cpu, api_cpu, vm_cpu, sb::load_average(),
      format_verbs(first_pass_verbs, 1));

  // Let the first pass's own follow-ups (finalizer re-enqueues) drain, then one steady period.
  // The audit so far is counted: drop it, a 50 000-DHA first pass is a few hundred MiB of it.
  std::this_thread::sleep_for(std::chrono::seconds(std::min(args.sync_period / 4, 10)));
  api.clear_audit();
  const auto reconciles_before = all_reconciles();
  const double queries_before = vm_queries(vm);
  const auto cpu_before = all_cpu();
  const double bench_before = sb::sample_process(getpid()).cpu_seconds;
  const double vm_before = vm_pid > 0 ? sb::sample_process(vm_pid).cpu_seconds : 0;
  const auto window_start = Clock::now();

  // The load change: the sample's connections double; each should get one scale-up PATCH.
  std::vector<std::size_t> sampled;
  for (const auto& [key, i] : sample_index) {
    series.set_load(i, sb::kRaisedLoad);
    sampled.push_back(i);
  }
  series.push_only(sampled);
  vm.flush();
  const auto load_changed = Clock::now();
  std::cerr << fmt::format("scale: load change visible {:.1f}s after the window started\n",
                           seconds_since(window_start));

  std::this_thread::sleep_until(window_start + std::chrono::seconds(args.sync_period));
  const auto audit = api.audit();
  const auto reconciles_after = all_reconciles();
  const double queries_after = vm_queries(vm);
  const auto cpu_after = all_cpu();
  const double bench_after = sb::sample_process(getpid()).cpu_seconds;
  const double vm_after = vm_pid > 0 ? sb::sample_process(vm_pid).cpu_seconds : 0;
  const double window_s = seconds_since(window_start);
  const auto held = ops.shards_held(admin_client);

  // Latency: wait up to one more sync period for stragglers.
  const auto latency_deadline = load_changed + std::chrono::seconds(2 * args.sync_period + 10);
  while (Clock::now() < latency_deadline) {
    {
      std::lock_guard lock(patch_mu);
      if (patched_at.size() >= sample_index.size()) break;
    }
    std::this_thread::sleep_for(200ms);
  }
  std::vector<double> latencies;
  {
    std::lock_guard lock(patch_mu);
    for (const auto& [key, at] : patched_at)
      latencies.push_back(std::chrono::duration<double>(at - load_changed).count());
  }
  std::sort(latencies.begin(), latencies.end());
  // PATCHes of the sampled targets since the window started, from the server's record: one
  // load change should give each exactly one.
  std::map<std::string, int> patches_per_key;
  for (const auto& e : api.audit()) {
    if (e.method != "PATCH" || e.status >= 300 || users.count(e.username) == 0) continue;
    for (const auto& [key, i] : sample_index)
      if (e.path ==
          fmt::format("/apis/apps.cozystack.io/v1alpha1/namespaces/{}/postgreses/{}", apps[i].ns, apps[i].name))
        ++patches_per_key[key];
  }
  std::vector<sb::ProcessSample> final_proc;
  for (std::size_t k = 0; k < ops.size(); ++k) final_proc.push_back(sb::sample_process(ops.pid(k)));
  targets.stop();
  series.stop();
  if (series.failures() > 0) std::cerr << fmt::format("scale: {} re-imports of the series failed\n", series.failures());

  const double reconciles = sum(reconciles_after) - sum(reconciles_before);
  const auto verbs = operator_requests(audit, 0, users);
  const int requests = total_of(verbs);
  const double cpu = sum(cpu_after) - sum(cpu_before);
  const double per_period = args.sync_period / window_s;
  double rss = 0, peak = 0;
  for (const auto& p : final_proc) {
    rss += p.rss_mib;
    peak += p.peak_mib;
  }
  auto pct = [&](double p) {
    return latencies.empty()
               ? std::string("-")
               : fmt::format("{:.1f}",
                             latencies[std::min(latencies.size() - 1, static_cast<std::size_t>(p * latencies.size()))]);
  };

  std::cerr << fmt::format(
      "scale: steady window {:.1f}s: {} reconciles, operator CPU {:.1f}s, API server + this process "
      "CPU {:.1f}s, VictoriaMetrics CPU {:.1f}s, load average {}, requests: {}\n",
      window_s, reconciles, cpu, bench_after - bench_before, vm_after - vm_before, sb::load_average(),
      format_verbs(verbs, 1));
  // | N | ns | first pass s | first-pass rec/s | steady rec/s | API req/rec | by verb | queries/rec |
  // CPU ms/rec | CPU s per sync period | harness CPU s per sync period | RSS MiB | peak MiB | KiB/DHA |
  // latency p50/max s (patched/sample) |; with --shards: CPU and RSS are sums over the replicas.
  std::cout << fmt::format(
      "| {} | {} | {:.1f} | {:.0f} | {:.1f} | {:.2f} | {} | {:.2f} | {:.2f} | {:.1f} | {:.1f} | {:.1f} | {:.1f} | "
      "{:.1f} | {} / {} "
      "({}/{}) |",
      args.n, namespaces, first_pass_s, first_pass_reconciles / first_pass_s, reconciles / window_s,
      reconciles > 0 ? requests / reconciles : 0.0, format_verbs(verbs, reconciles),
      reconciles > 0 ? (queries_after - queries_before) / reconciles : 0.0,
      reconciles > 0 ? 1000 * cpu / reconciles : 0.0, cpu * per_period,
      (bench_after - bench_before + vm_after - vm_before) * per_period, rss, peak, rss * 1024 / args.n, pct(0.5),
      latencies.empty() ? std::string("-") : fmt::format("{:.1f}", latencies.back()), latencies.size(),
      sample_index.size());
  if (sharded) {
    // | shards | metric queries / cycle (one sync period) | API server / VM CPU s per sync period | patches per sampled
    // DHA | per replica: shards held, reconciles/s, API requests/s, CPU s per sync period, RSS / peak MiB |
    std::string per_replica;
    for (std::size_t k = 0; k < ops.size(); ++k) {
      std::string shards;
      for (int s : held[k]) shards += fmt::format("{}{}", shards.empty() ? "" : ",", s);
      per_replica += fmt::format(
          "{}{}: shards [{}], {:.1f} reconciles/s, {:.1f} requests/s ({}), {:.1f} CPU s, {:.1f} / {:.1f} MiB",
          k == 0 ? "" : "; ", k, shards, (reconciles_after[k] - reconciles_before[k]) / window_s,
          total_of(operator_requests(audit, 0, {ops.username(k)})) / window_s,
          format_verbs(operator_requests(audit, 0, {ops.username(k)}), window_s),
          (cpu_after[k] - cpu_before[k]) * per_period, final_proc[k].rss_mib, final_proc[k].peak_mib);
    }
    std::cout << fmt::format(" {} | {:.0f} | {:.1f} / {:.1f} | {} | {} |", args.shards,
                             (queries_after - queries_before) * per_period, (bench_after - bench_before) * per_period,
                             (vm_after - vm_before) * per_period,
                             format_patch_counts(patches_per_key, sample_index.size()), per_replica);
  }
  std::cout << "\n";
  ops.stop();
  if (args.work_dir.empty()) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"db-autoscaler scale benchmark: one markdown row per run"};
  Args a;
  app.add_option("--n", a.n, "number of applications and DHAs")->check(CLI::Range(1, 1000000));
  app.add_option("--dha-annotation-bytes", a.dha_annotation_bytes,
                 "an annotation of this many bytes on each DHA (a tenant's)")
      ->check(CLI::Range(0, 256 * 1024));
  app.add_option("--dha-finalizers", a.dha_finalizers, "this many finalizers of a tenant's own on each DHA");
  app.add_option("--namespaces", a.namespaces, "tenant namespaces (default N/10)");
  app.add_option("--sync-period", a.sync_period, "operator --sync-period in seconds")->check(CLI::Range(2, 3600));
  app.add_option("--operator-cpu", a.operator_cpu, "CPU the operator(s) are pinned to (taskset -c)");
  app.add_option("--sample", a.sample, "DHAs whose load rises (end-to-end latency)");
  app.add_option("--create-threads", a.create_threads, "parallel clients creating the world");
  app.add_option("--shards", a.shards, "operator processes, each --leader-elect --shards <this> (1 = one process)")
      ->check(CLI::Range(1, 256));
  app.add_flag("--leader-elect", a.leader_elect, "run the (single) operator with leader election on");
  app.add_option("--watch-history", a.watch_history, "watch events the API server keeps (default max(100000, 3 N))");
  app.add_option("--operator", a.binary, "db-autoscaler binary")->check(CLI::ExistingFile);
  app.add_option("--log-level", a.log_level, "operator --log-level");
  app.add_option("--work-dir", a.work_dir, "keep kubeconfigs and the operator logs here");
  app.add_option("--first-pass-timeout", a.first_pass_timeout, "seconds");
  app.add_option("--operator-env", a.operator_env, "NAME=VALUE added to the operator's environment (repeatable)");
  app.add_option("--operator-flag", a.operator_flags,
                 "flag added to every operator's command line, e.g. "
                 "--operator-flag=--workers=16 (repeatable)");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(a);
  } catch (const std::exception& e) {
    std::cerr << "scale_bench: " << e.what() << "\n";
    return 1;
  }
}
