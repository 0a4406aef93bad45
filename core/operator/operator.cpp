#include "operator/operator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <fmt/format.h>

#include <fstream>
#include <random>

#include "dha/abi.h"
#include "dha/admission/one_dha_per_target_webhook.hpp"
#include "dha/admission/replicas_ownership_webhook.hpp"
#include "dha/kube/client.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/event_recorder.hpp"
#include "dha/kube/informer.hpp"
#include "dha/kube/json.hpp"
#include "dha/kube/leader_election.hpp"
#include "dha/server/metrics_auth.hpp"
#include "dha/server/self_signed_certificate.hpp"
#include "dha/server/server.hpp"
#include "dha/server/standard_routes.hpp"
#include "dha/telemetry/process_metrics.hpp"
#include "dha/telemetry/registry.hpp"
#include "host/cached_reader.hpp"
#include "host/plugin_set.hpp"
#include "host/self_metrics.hpp"
#include "operator/dha_cache_entry.hpp"
#include "operator/heap_trim.hpp"
#include "operator/pipeline_wiring.hpp"
#include "operator/sharded_work.hpp"
#include "plugin_host/calls_in_flight.hpp"

namespace dha::op {
namespace {

// No plugin call takes this long (metric queries have a 10 s deadline of their own): one that
// does is hung, and only a restart gets its worker back.
constexpr std::chrono::seconds kPluginCallLimit{120};

// Status-only updates (our own status writes) must not trigger a reconcile, or every write
// would immediately cause the next one (controller-runtime's GenerationChangedPredicate, plus
// the metadata that matters to us: deletion and finalizers).
bool worth_reconciling(const rapidjson::Value& before, const rapidjson::Value& after) {
  auto text = [](const rapidjson::Value& obj, std::initializer_list<std::string_view> path) {
    const auto* v = kube::find_path(obj, path);
    return v == nullptr ? std::string() : kube::to_json(*v);
  };
  for (auto path : {std::initializer_list<std::string_view>{"metadata", "generation"},
                    std::initializer_list<std::string_view>{"metadata", "deletionTimestamp"},
                    std::initializer_list<std::string_view>{"metadata", "finalizers"}})
    if (text(before, path) != text(after, path)) return true;
  return false;
}

// The fence of every reconciler write: the time by which the write must be over (the end of
// the lease this replica holds), or WriteFenced saying why there is none, with the numbers.
kube::TimePoint lease_covers_writes_until(const kube::LeaderElector* elector, SelfMetrics& metrics) {
  const auto until = elector != nullptr ? elector->lease_valid_until() : std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  if (until && now < *until) return *until;
  metrics.count_fenced_write();
  if (!until) {
    const std::string holder = elector != nullptr ? elector->observed_holder() : std::string();
    throw kube::WriteFenced(fmt::format("not writing: this replica does not hold the leader lease (holder: {})",
                                        holder.empty() ? "none seen" : holder));
  }
  const auto seconds = [](kube::Duration d) { return std::chrono::duration<double>(d).count(); };
  throw kube::WriteFenced(fmt::format(
      "not writing: the leader lease ran out {:.1f} s ago (last renewal {:.1f} s ago, renew deadline {:.1f} s)",
      seconds(now - *until), seconds(now - *until + elector->renew_deadline()), seconds(elector->renew_deadline())));
}

std::string make_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "db-autoscaler");
  std::random_device rd;
  return std::string(host) + "_" + std::to_string(getpid()) + "_" + std::to_string(rd() % 100000);
}

std::unique_ptr<server::Server> make_server(const std::string& name, const server::BindAddress& bind,
                                            std::optional<server::TlsOptions> tls, server::Router router,
                                            server::Authorizer authorizer = {},
                                            const std::function<void(server::ServerOptions&)>& tune = {}) {
  const bool secure = tls.has_value();
  const std::string host = bind.host.empty() ? "0.0.0.0" : bind.host;
  server::ServerOptions o;
  o.name = name;
  o.host = host;
  o.port = bind.port;
  o.tls = std::move(tls);
  o.authorizer = std::move(authorizer);
  if (tune) tune(o);
  auto s = std::make_unique<server::Server>(std::move(o), std::move(router));
  s->start();
  spdlog::info("{} server listening on {}:{}{}", name, host, s->port(), secure ? " (TLS)" : "");
  return s;
}

void limit_malloc_arenas() {
#ifdef __GLIBC__
  // glibc gives each busy thread its own malloc arena (up to 8 per core); with 8 workers and an
  // informer thread per watched kind, freed memory spread over those arenas is not reused
  // across them. Two arenas: 10 000 DHAs took 101 instead of 148 MiB RSS for ~0.1 ms more CPU
  // per reconcile (bench/scale). Before any thread of ours exists.
  mallopt(M_ARENA_MAX, 2);
  // Blocks above 128 KiB (a /metrics text, ~600 bytes per DHA; a list page) get their own
  // mapping, given back when freed. Without a fixed threshold glibc raises it to the largest
  // block freed so far, and from then on those blocks are carved from the heap and leave holes.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

}  // namespace

struct Operator::Parts {
  telemetry::Registry registry;
  std::unique_ptr<PipelineWiring> wiring;
  std::unique_ptr<kube::Controller> controller;
  std::unique_ptr<kube::Informer> dha_informer;
  std::mutex watch_mu;
  std::map<std::string, std::unique_ptr<kube::Informer>> secondary;
  std::unique_ptr<kube::LeaderElector> elector;
  std::unique_ptr<ShardedWork> sharded;  // --shards > 1
  std::unique_ptr<kube::ShardLeases> shard_leases;
  std::unique_ptr<MetricsAuthorizer> metrics_auth;
  std::unique_ptr<server::Server> probes;
  std::unique_ptr<server::Server> metrics_server;
  std::unique_ptr<server::Server> webhook;
  std::unique_ptr<HeapTrim> heap_trim;
};

Operator::Operator(OperatorOptions options) : options_(std::move(options)), parts_(std::make_unique<Parts>()) {}

Operator::~Operator() { stop(); }

std::string Operator::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void Operator::fail(const std::string& why) {
  {
    std::lock_guard lock(mu_);
    if (failure_.empty()) failure_ = why;
  }
  failed_ = true;
}

std::chrono::milliseconds Operator::drain_limit() const { return options_.renew_deadline; }

std::uint16_t Operator::probe_port() const { return parts_->probes ? parts_->probes->port() : 0; }
std::uint16_t Operator::metrics_port() const { return parts_->metrics_server ? parts_->metrics_server->port() : 0; }
std::uint16_t Operator::webhook_port() const { return parts_->webhook ? parts_->webhook->port() : 0; }

void Operator::ensure_watch(const kube::ResourceRef& collection, bool owned) {
  Parts& p = *parts_;
  const std::string id = collection.plural + "." + collection.group + "/" + collection.version;
  std::lock_guard lock(p.watch_mu);
  if (stopping_ || p.secondary.count(id) != 0) return;
  kube::InformerOptions cache;
  cache.transform = kube::drop_managed_fields;
  auto informer = std::make_unique<kube::Informer>(*p.wiring->client, collection, cache);
  const kube::ResourceRef resource = collection;
  if (owned) {
    p.controller->watch_secondary(*informer, [&owners = p.wiring->owners, resource](const rapidjson::Value& obj) {
      return owners.owners_of(kube::secondary_key(resource, obj));
    });
  }
  p.wiring->reader->add(*informer);
  informer->start();
  spdlog::info("watching {}{}", id, owned ? " for changes to DHA targets" : " (cache)");
  p.secondary[id] = std::move(informer);
}

void Operator::start() {
  Parts& p = *parts_;
  limit_malloc_arenas();
  // Every 10 s: a trim of a few hundred MiB heap takes milliseconds, and between two trims
  // the freed memory stays resident, so RSS is what the operator holds plus ~10 s of churn.
  p.heap_trim = std::make_unique<HeapTrim>(std::chrono::seconds(10));
  wire_pipeline();
  cache_dhas();
  start_servers();
  fence_writes();
  p.dha_informer->start();
  // Every reconcile reads its namespace (monitoring label) and the namespace's quotas: cached.
  ensure_watch(kube::resources::namespaces(), false);
  ensure_watch(kube::resources::resource_quotas(), false);
  if (!options_.leader_elect) {
    p.wiring->metrics->set_leader(true);
    p.controller->start();
    spdlog::info("reconciling (leader election off), sync period {}s", options_.sync_period.count());
    return;
  }
  const std::string lease_namespace = options_.leader_election_namespace.empty() ? p.wiring->config.default_namespace
                                                                                 : options_.leader_election_namespace;
  if (p.sharded) {
    hold_shard_leases(lease_namespace);
  } else {
    run_leader_election(lease_namespace);
  }
}

// The pipeline with its plugins, API client and reconciler, and the controller whose workers
// run it (each on the shards this replica holds, when sharded).
void Operator::wire_pipeline() {
  Parts& p = *parts_;
  PipelineWiringOptions wo;
  wo.plugins = {options_.plugin_dirs, split_plugin_names(options_.plugins),
                read_plugin_config_text(options_.plugin_config), "--plugin-config " + options_.plugin_config};
  wo.kube.kubeconfig = options_.kubeconfig;
  wo.kube.qps = options_.kube_api_qps;
  wo.kube.burst = options_.kube_api_burst;
  wo.sync_period = options_.sync_period;
  wo.grouped_answer_max_age = std::min(options_.grouped_query_max_age, options_.sync_period);
  wo.watch = [this](const kube::ResourceRef& c) { ensure_watch(c); };
  p.wiring = std::make_unique<PipelineWiring>(p.registry, std::move(wo));
  telemetry::register_process_metrics(p.registry);
  telemetry::register_build_info(p.registry, options_.version,
                                 std::to_string(DHA_ABI_VERSION_MAJOR) + "." + std::to_string(DHA_ABI_VERSION_MINOR));
  if (options_.shards < 1) throw std::runtime_error("--shards must be at least 1");
  if (options_.shards > 1 && !options_.leader_elect)
    throw std::runtime_error(
        fmt::format("--shards {} needs --leader-elect: shards are held through Leases", options_.shards));
  if (options_.shards > 1) p.sharded = std::make_unique<ShardedWork>(options_.shards, options_.shard_key);
  kube::ControllerOptions co;
  co.workers = options_.workers;
  co.metrics = &p.registry;
  p.controller = std::make_unique<kube::Controller>(
      "dha",
      [&r = *p.wiring->reconciler, sharded = p.sharded.get()](const std::string& key) {
        if (sharded == nullptr) return r.reconcile(key);
        return sharded->reconcile(key, [&r](const std::string& k) { return r.reconcile(k); });
      },
      co);
}

void Operator::cache_dhas() {
  Parts& p = *parts_;
  // The DHA cache feeds the work queue (keys, generation, deletion, our finalizer) and the
  // target webhook (each DHA's targetRef); each reconcile GETs the DHA it works on. So the cache
  // keeps those fields alone: at 10 000 DHAs their statuses (history, gate trace) were most of
  // the operator's memory, and a tenant's annotations or finalizers must not count at all.
  kube::InformerOptions dha_cache;
  dha_cache.transform = keep_what_the_operator_reads;
  // A list page is held as received until its items are cut down, so its size is the relist's
  // peak: 500 DHAs of a tenant's 250 KB annotations were 125 MB. Pages of about 2 MB whatever
  // the DHAs weigh: about 8 such DHAs to a page, up to 500 plain ones.
  dha_cache.page_bytes = 2 << 20;
  p.dha_informer = std::make_unique<kube::Informer>(*p.wiring->client, kube::resources::dhas(), dha_cache);
  // Sharded, a replica queues only the DHAs of its shards (a gained shard queues its own).
  auto enqueue = [&queue = p.controller->queue(), sharded = p.sharded.get()](const std::string& key) {
    if (sharded == nullptr || sharded->owns(key)) queue.add(key);
  };
  p.dha_informer->add_handler({[enqueue](const kube::ObjectPtr& o) { enqueue(kube::key_of(*o)); },
                               [enqueue](const kube::ObjectPtr& before, const kube::ObjectPtr& after) {
                                 if (worth_reconciling(*before, *after)) enqueue(kube::key_of(*after));
                               },
                               [enqueue](const kube::ObjectPtr& o) { enqueue(kube::key_of(*o)); }});
}

void Operator::start_servers() {
  Parts& p = *parts_;
  // Servers: probes (plain HTTP), metrics (TLS + TokenReview/SAR with --metrics-secure), webhook.
  if (auto bind = server::parse_bind_address(options_.health_probe_bind_address)) {
    server::Router router;
    server::mount_health_probes(
        router, [&p] { return p.dha_informer && p.dha_informer->has_synced(); },
        [] { return plugin_host::CallsInFlight::instance().overdue(kPluginCallLimit); });
    p.probes = make_server("probes", *bind, std::nullopt, std::move(router), {}, server::apply_probe_limits);
  }
  if (auto bind = server::parse_bind_address(options_.metrics_bind_address)) {
    server::Router router;
    server::mount_metrics(router, p.registry);
    std::optional<server::TlsOptions> tls;
    server::Authorizer authorizer;
    if (options_.metrics_secure) {
      tls = server::TlsOptions{server::certificate_dir_or_self_signed(options_.cert_dir, "metrics")};
      p.metrics_auth = std::make_unique<MetricsAuthorizer>(p.wiring->config);
      authorizer = [auth = p.metrics_auth.get()](const server::Request& r) { return auth->authorize(r); };
    }
    p.metrics_server = make_server("metrics", *bind, tls, std::move(router), authorizer);
  }
  if (options_.enable_webhook) {
    server::Router router;
    admission::ReplicasOwnershipWebhookOptions wo;
    wo.apps_api_username = options_.apps_api_username;
    admission::mount_replicas_ownership_webhook(router, wo, &p.registry);
    admission::mount_one_dha_per_target_webhook(
        router, {}, [&dhas = *p.dha_informer](const std::string& ns) { return claims_in_cache(dhas, ns); },
        &p.registry);
    if (options_.webhook_port < 0 || options_.webhook_port > 65535)
      throw std::runtime_error("--webhook-port must be 0..65535");
    server::TlsOptions tls{server::certificate_dir_or_self_signed(options_.cert_dir, "the webhook")};
    if (!options_.webhook_client_ca.empty()) {
      // Only the webhook's listener: /metrics and the probes have their own.
      if (!std::ifstream(options_.webhook_client_ca))
        throw std::runtime_error("--webhook-client-ca: cannot read " + options_.webhook_client_ca);
      tls.client_ca_file = options_.webhook_client_ca;
      tls.client_names = options_.webhook_client_names;
    } else if (!options_.webhook_client_names.empty()) {
      throw std::runtime_error("--webhook-client-names needs --webhook-client-ca: names of which certificates?");
    }
    try {
      p.webhook = make_server(
          "webhook", server::BindAddress{options_.webhook_host, static_cast<std::uint16_t>(options_.webhook_port)},
          std::move(tls), std::move(router), {}, [&](server::ServerOptions& o) {
            o.trusted_networks = options_.webhook_trusted_networks;
            // The API server sends its ClientHello with its connect: only floods are silent.
            o.defer_accept = std::chrono::seconds(1);
          });
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("--webhook-trusted-cidrs: ") + e.what());
    }
    if (!options_.webhook_client_ca.empty())
      spdlog::info("webhook: clients must present a certificate signed by a CA in {}{}", options_.webhook_client_ca,
                   options_.webhook_client_names.empty()
                       ? std::string()
                       : fmt::format(" naming one of {}", fmt::join(options_.webhook_client_names, ", ")));
  }
}

void Operator::fence_writes() {
  Parts& p = *parts_;
  if (p.sharded) {
    // Sharded: the same fencing, by the lease of the shard of the DHA being reconciled.
    // A write that passes is abandoned when that shard's lease ends, as in single-shard mode.
    p.wiring->client->set_write_fence([&p] {
      try {
        return p.sharded->fence();
      } catch (const kube::WriteFenced&) {
        p.wiring->metrics->count_fenced_write();
        throw;
      }
    });
  } else if (options_.leader_elect) {
    // Fencing: every write of the reconcilers (replicas, status, events, finalizers) first
    // checks that this replica still holds the lease, as of now. One that lost it writes
    // nothing more, whatever its in-flight reconciles were about to do.
    // A write that passes is abandoned when the lease it was sent under ends, so none is still
    // on its way once another replica may take the lease over (docs/behaviour.md#leader-election).
    p.wiring->client->set_write_fence([&p] { return lease_covers_writes_until(p.elector.get(), *p.wiring->metrics); });
  }
}

// Sharded: one Lease per shard; a replica reconciles the DHAs of the shards it holds.
void Operator::hold_shard_leases(const std::string& lease_namespace) {
  Parts& p = *parts_;
  kube::ShardLeaseConfig sc;
  sc.lease_namespace = lease_namespace;
  sc.lease_name = options_.leader_election_id;
  sc.identity = make_identity();
  sc.lease_duration = options_.lease_duration;
  sc.renew_deadline = options_.renew_deadline;
  sc.retry_period = options_.retry_period;
  spdlog::info("{} shards (by {}) on the Leases {}/{}-shard-0..{} as {}", options_.shards,
               kube::shard_key_name(options_.shard_key), lease_namespace, options_.leader_election_id,
               options_.shards - 1, sc.identity);
  p.controller->start();
  p.shard_leases =
      start_shard_leases(p.wiring->config, std::move(sc), *p.sharded, *p.dha_informer, p.controller->queue(),
                         *p.wiring->metrics, [&r = *p.wiring->reconciler](const std::string& key) {
                           const auto slash = key.find('/');
                           r.forget(key.substr(0, slash), key.substr(slash + 1));
                         });
}

// One Lease: the replica that holds it reconciles every DHA; one that loses it exits.
void Operator::run_leader_election(const std::string& lease_namespace) {
  Parts& p = *parts_;
  kube::LeaderElectionConfig le;
  le.lease_namespace = lease_namespace;
  le.lease_name = options_.leader_election_id;
  le.lease_duration = options_.lease_duration;
  le.renew_deadline = options_.renew_deadline;
  le.retry_period = options_.retry_period;
  le.identity = make_identity();
  le.on_started_leading = [&p, id = le.identity, lease = le.lease_name] {
    spdlog::info("became leader ({}); reconciling", id);
    p.wiring->metrics->set_leader(true);
    p.wiring->metrics->set_lease_held(lease, true);
    p.controller->start();
  };
  le.on_stopped_leading = [this, &p, lease = le.lease_name] {
    p.wiring->metrics->set_leader(false);
    p.wiring->metrics->set_lease_held(lease, false);
    if (stopping_) return;
    // Nothing queued starts any more; the reconciles in flight can no longer write (the fence)
    // and get drain_limit() to finish. A controller cannot be resumed safely once another
    // replica may have acted: exit, as controller-runtime does, and restart as a follower.
    const int in_flight = p.controller->in_flight();
    p.controller->queue().shut_down();
    spdlog::error(
        "leader election lost: stopped leading; queued reconciles dropped, {} in flight (their writes are "
        "refused) get {:.1f} s to finish; then exiting",
        in_flight, std::chrono::duration<double>(drain_limit()).count());
    fail("leader election lost");
  };
  le.on_new_leader = [](const std::string& holder) { spdlog::info("leader is now {}", holder); };
  p.wiring->metrics->set_lease_held(le.lease_name, false);  // a candidate, until it leads
  p.elector = std::make_unique<kube::LeaderElector>(p.wiring->config, le);
  spdlog::info("waiting for the Lease {}/{} as {}", le.lease_namespace, le.lease_name, le.identity);
  p.elector->start();
}

void Operator::stop() {
  if (stopping_.exchange(true)) return;
  Parts& p = *parts_;
  // Drain the in-flight reconciles first, then release the Lease: a follower that takes over
  // at once must never overlap with a reconcile of ours.
  // A reconcile blocked in a plugin call cannot be interrupted: after drain_limit() it is left
  // behind and the Lease is not released but runs out, since one of its writes may still be on
  // its way until then (the fence bounds it by the lease).
  const bool drained = p.controller == nullptr || p.controller->stop_within(drain_limit());
  if (!drained) {
    abandoned_ = p.controller->in_flight();
    spdlog::error(
        "{} reconcile(s) still running after {:.1f} s (a plugin call that has not returned); not releasing "
        "the Lease: it runs out on its own",
        abandoned_.load(), std::chrono::duration<double>(drain_limit()).count());
  }
  if (p.elector) p.elector->stop(drained);
  if (p.shard_leases) p.shard_leases->stop();  // releases only the shards whose reconciles ended
  if (p.dha_informer) p.dha_informer->stop();
  {
    std::lock_guard lock(p.watch_mu);
    for (auto& [id, informer] : p.secondary) informer->stop();
  }
  for (auto* s : {p.webhook.get(), p.metrics_server.get(), p.probes.get()})
    if (s != nullptr) s->stop(std::chrono::seconds(2));
  if (p.wiring) p.wiring->metrics->set_leader(false);
  if (p.wiring && p.elector) p.wiring->metrics->set_lease_held(options_.leader_election_id, false);
  p.heap_trim.reset();
}

}  // namespace dha::op
