#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dha/kube/resource.hpp"
#include "dha/kube/shard_assignment.hpp"

// `db-autoscaler run`: the whole operator process. start() loads the plugins, connects to the
// API server, serves probes / metrics / the webhook, watches DHAs (and, lazily, each target
// kind and health-object kind a DHA references), and reconciles — only while holding the
// leader Lease when leader election is on. stop() shuts down gracefully (the Lease is released).
namespace dha::op {

struct OperatorOptions {
  std::string kubeconfig;
  std::string version = "unknown";  // the build-info metric's label
  bool leader_elect = false;
  std::string leader_election_namespace;  // "" = the kubeconfig's / pod's namespace
  std::string leader_election_id = "db-autoscaler.autoscaling.cozystack.io";
  // Lease timings (controller-runtime's defaults).
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  // > 1: the DHAs are split into this many shards, each on its own Lease, spread over the
  // replicas (needs leader_elect; sharded_work.hpp). 1: one leader Lease, as without sharding.
  int shards = 1;
  // What is hashed into a shard: namespace/name (tenants spread) or the namespace alone
  // (a tenant's DHAs on one replica: its grouped queries sent once). Every replica must agree.
  kube::ShardKey shard_key = kube::ShardKey::namespace_name;
  std::vector<std::string> plugin_dirs{"/usr/lib/db-autoscaler/plugins"};
  std::vector<std::string> plugins;
  std::string plugin_config;
  std::string metrics_bind_address = "0";
  bool metrics_secure = true;
  std::string health_probe_bind_address = ":8081";
  int webhook_port = 9443;
  // The address the webhook listens on. Loopback unless told otherwise: a process started on a
  // host does not open an admission endpoint to its networks; in a Pod the chart passes the
  // Pod's IP. Empty (or 0.0.0.0) = every IPv4 interface.
  std::string webhook_host = "127.0.0.1";
  // Networks the API server calls the webhook from: its connection slots are reserved for
  // them. Empty: the webhook learns the few addresses that send it well-formed reviews.
  std::vector<std::string> webhook_trusted_networks;
  // A PEM bundle of CAs: the webhook then requires of every caller a client certificate signed
  // by one of them (kube-apiserver's, as its admission configuration names it). Empty: none.
  std::string webhook_client_ca;
  // With webhook_client_ca: the client certificate's CN or a DNS SAN must be one of these.
  std::vector<std::string> webhook_client_names;
  std::string cert_dir = "/tmp/k8s-webhook-server/serving-certs";
  std::string operator_username = "system:serviceaccount:cozy-db-autoscaler:db-autoscaler";
  std::string apps_api_username = "system:serviceaccount:cozy-system:cozystack-api";
  std::chrono::seconds sync_period{60};
  // How long a grouped metric answer serves the DHAs of a namespace (never longer than the sync
  // period): their reconciles come due together, so a short age costs no extra queries and keeps
  // a reading at most this old. 0: every reconcile asks its own grouped query.
  std::chrono::seconds grouped_query_max_age{10};
  bool enable_webhook = true;
  // Reconciles are mostly waiting (API server, metric source): 8 in flight keep one core busy
  // at 10 000 DHAs per 60 s, where 2 managed ~80 reconciles/s of the ~170/s needed (bench/scale).
  int workers = 8;
  // Client-side rate limit of the API client. A reconcile makes ~2 requests (get the DHA, write
  // its status) and the operator runs N / sync_period reconciles per second: 10 000 DHAs at 60 s
  // need ~340/s, with bursts at start-up (bench/scale). kube's usual 50/s capped it near 1 500.
  double kube_api_qps = 500;
  int kube_api_burst = 1000;
};

class Operator {
 public:
  explicit Operator(OperatorOptions options);
  ~Operator();
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  // Throws std::runtime_error (with the flag or file at fault) when something cannot start.
  void start();
  // Idempotent: drains the reconcilers (at most drain_limit()), releases the Lease, stops
  // watches and servers.
  void stop();
  // How long stop() waits for the reconciles in flight: the renew deadline, so a replica that
  // lost the lease is gone at most one more renew deadline after it noticed.
  std::chrono::milliseconds drain_limit() const;
  // Reconciles stop() left running (blocked in a plugin call past drain_limit()). Non-zero: the
  // Operator must not be destroyed (their threads use it); end the process with _Exit.
  int abandoned_reconciles() const { return abandoned_.load(); }
  // A fatal condition after start (leadership lost): the process should exit non-zero.
  bool failed() const { return failed_.load(); }
  std::string failure() const;

  // Bound ports (0 when that server is off), for tests that pass port 0.
  std::uint16_t probe_port() const;
  std::uint16_t metrics_port() const;
  std::uint16_t webhook_port() const;

 private:
  struct Parts;
  // Starts (once) an informer on `collection` in all namespaces and serves reads from it; with
  // `owned`, its changes also enqueue the DHAs that reference the changed object.
  void ensure_watch(const kube::ResourceRef& collection, bool owned = true);
  void fail(const std::string& why);
  // The steps of start(), in its order.
  void wire_pipeline();
  void cache_dhas();
  void start_servers();
  void fence_writes();
  void hold_shard_leases(const std::string& lease_namespace);
  void run_leader_election(const std::string& lease_namespace);

  OperatorOptions options_;
  std::unique_ptr<Parts> parts_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> failed_{false};
  std::atomic<int> abandoned_{0};
  mutable std::mutex mu_;
  std::string failure_;
};

}  // namespace dha::op
