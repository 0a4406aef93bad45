#include "pipeline/reconciler.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>

#include "dha/actuators/builtin_actuators.hpp"
#include "dha/decide/adaptive_policy.hpp"
#include "dha/decide/decide.hpp"
#include "dha/kube/json.hpp"
#include "dha/model/input_error.hpp"
#include "host/api_calls.hpp"
#include "host/logging.hpp"
#include "pipeline/cycle_phase.hpp"
#include "pipeline/finalizer.hpp"
#include "pipeline/first_observation.hpp"
#include "pipeline/target_claim.hpp"
#include "pipeline/target_ref_limits.hpp"
#include "pipeline/tenant_metadata.hpp"

namespace dha::pipeline {
namespace {

// The observe stage counts its metric cycles on the pipeline's one clock, and looks for a target
// its cache does not have on the server.
ObserveOptions observe_options(const ReconcilerOptions& o, const kube::ObjectReader& server) {
  ObserveOptions out = o.observe;
  if (out.clock == nullptr) out.clock = o.clock;
  out.server = &server;
  return out;
}

model::DhaSpec parse_spec_of(const rapidjson::Value& dha) {
  const auto* spec = kube::find_path(dha, {"spec"});
  if (spec == nullptr) throw model::InputError("spec", "required");
  return model::parse_spec(*spec);
}

}  // namespace

Reconciler::Reconciler(kube::Client& client, const op::CachedReader& reader, const op::PluginSet& plugins,
                       kube::EventRecorder& events, op::SelfMetrics& metrics, kube::OwnerIndex& owners,
                       ReconcilerOptions options, WatchRequest watch)
    : client_(client),
      server_(reader.server()),
      plugins_(plugins),
      metrics_(metrics),
      owners_(owners),
      options_(std::move(options)),
      watch_(std::move(watch)),
      observe_(reader, plugins, observe_options(options_, reader.server()),
               [&metrics](const std::string& scope, const std::string& outcome) {
                 metrics.count_metric_query(scope, outcome);
               }),
      act_(client, plugins, metrics, &reader),
      finalize_(client, plugins, metrics, act_),
      status_(client, events, metrics) {
  if (options_.clock == nullptr) options_.clock = &kube::SystemClock::instance();
}

std::int64_t Reconciler::now() const {
  return std::chrono::duration_cast<std::chrono::seconds>(options_.clock->wall_now().time_since_epoch()).count();
}

kube::ReconcileResult Reconciler::reconcile(const std::string& key) {
  const auto [ns, name] = kube::split_key(key);
  op::DhaLogScope scope(ns, name);
  const auto started = std::chrono::steady_clock::now();
  kube::ReconcileResult result;
  try {
    result = reconcile_dha(ns, name);
  } catch (const std::exception& e) {
    result = kube::Error{e.what()};
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const bool failed = std::holds_alternative<kube::Error>(result);
  const auto* requeue = std::get_if<kube::RequeueAfter>(&result);
  metrics_.reconcile_finished(failed ? "error" : requeue != nullptr && requeue->retry ? "requeue" : "success", seconds);
  if (failed) spdlog::warn("reconcile failed: {}", std::get<kube::Error>(result).message);
  return result;
}

// What the reconcile reads besides the DHA (the target, then its health object) becomes what
// the DHA owns in the owner index, and its kind is watched: a change of either requeues the DHA.
// The first object of a reconcile replaces what the last one registered.
Observe::ReadNotice Reconciler::read_notice(const std::string& ns, const std::string& name) {
  auto secondaries = std::make_shared<std::vector<std::string>>();
  return [this, ns, key = ns + "/" + name, secondaries](const kube::ResourceRef& object) {
    secondaries->push_back(kube::secondary_key(object, ns, object.name));
    owners_.set(key, *secondaries);
    if (watch_) watch_(object.collection().in_namespace(""));
  };
}

void Reconciler::forget(const std::string& ns, const std::string& name) {
  status_.forget(ns, name);
  owners_.remove_owner(ns + "/" + name);
}

// The quota ceiling observe read is the cache's, as fresh as its watch, and a watch can lag or
// lose its connection without a word. A scale-up is where a stale ceiling does harm (a quota
// created or tightened since), so before one the quotas are read from the server: the
// observation with the server's ceiling when it differs, to decide again on. A failed read keeps
// the cache's answer, as observe does.
std::optional<model::Observation> Reconciler::with_servers_quota(const std::string& ns, const sdk::Topology& topology,
                                                                 const model::Observation& obs) const {
  std::string problem;
  const auto ceiling = quota_ceiling(server_, ns, topology, obs.current_replicas, problem);
  if (!problem.empty() || ceiling == obs.quota_max_replicas) return std::nullopt;
  spdlog::info("tenant quota ceiling {} on the server, {} in the cache: deciding on the server's",
               ceiling ? std::to_string(*ceiling) : "none",
               obs.quota_max_replicas ? std::to_string(*obs.quota_max_replicas) : "none");
  model::Observation checked = obs;
  checked.quota_max_replicas = ceiling;
  return checked;
}

// The finalizer is there to clear a marker we wrote on the target: it is added before our
// first write to the target, and kept (added again) once one is recorded. A DHA that never
// acts costs no write for it: at 10 000 DHAs that was a third of the first pass's requests.
void Reconciler::ensure_finalizer(const kube::ResourceRef& ref, std::optional<rapidjson::Document>& dha,
                                  status::Report& report) {
  if (has_finalizer(*dha)) return;
  dha = without_tenant_metadata(add_finalizer(client_, metrics_, ref));
  report.dha = &*dha;
}

// The DHA's spec; nullopt, with the status saying why, when its status or its spec cannot be read.
std::optional<model::DhaSpec> Reconciler::readable_spec(const rapidjson::Value& dha, status::Report& report) {
  if (!report.unreadable.empty()) {
    std::string fields;
    for (const auto& f : report.unreadable) fields += (fields.empty() ? "" : "; ") + f.error;
    status_.stopped(report, kStatusUnreadable,
                    "status unreadable (" + fields + "); not scaling until it is fixed or removed", std::nullopt);
    return std::nullopt;
  }
  model::DhaSpec spec;
  try {
    spec = parse_spec_of(dha);
  } catch (const model::InputError& e) {
    status_.stopped(report, kInvalidSpec, e.what(), std::nullopt);
    return std::nullopt;
  }
  if (const auto too_long = spec.target_ref ? oversized_target_field(*spec.target_ref) : std::nullopt) {
    status_.stopped(report, kInvalidSpec, *too_long, std::nullopt);
    return std::nullopt;
  }
  return spec;
}

// The decision on the cache's observation; a scale-up is decided again on the server's quota
// ceiling where that differs from the cache's (with_servers_quota).
decide::Decision Reconciler::decide_on(const std::string& ns, const std::string& name, const model::DhaSpec& spec,
                                       const status::Report& report, const sdk::Topology& topology,
                                       const model::Observation& obs) const {
  decide::DecideOptions options;
  options.chain = &plugins_.chain();
  options.dha_namespace = ns;
  options.dha_name = name;
  const auto decide_once = [&](const model::Observation& seen) {
    return decide::decide(spec, seen, state_for_decide(report.previous, spec, seen.current_replicas, report.now),
                          report.now, options);
  };
  decide::Decision d = decide_once(obs);
  if (d.apply && d.desired_replicas > d.current_replicas)
    if (const auto checked = with_servers_quota(ns, topology, obs)) d = decide_once(*checked);
  return d;
}

kube::ReconcileResult Reconciler::reconcile_dha(const std::string& ns, const std::string& name) {
  // Periodic: at the namespace's phase in the sync period, so its DHAs share fresh grouped answers.
  const kube::RequeueAfter again{options_.requeue_at_namespace_phase
                                     ? until_next_phase(ns, options_.clock->wall_now(), options_.sync_period)
                                     : kube::Duration(options_.sync_period)};
  const kube::ResourceRef ref = kube::resources::dhas(ns).named(name);
  auto dha = op::counted_api_call(metrics_, "get", [&] { return client_.get_if_exists(ref); });
  if (!dha) {
    forget(ns, name);
    return kube::Done{};
  }
  dha = without_tenant_metadata(*dha);  // held for the whole reconcile, by each worker

  if (kube::find_path(*dha, {"metadata", "deletionTimestamp"}) != nullptr) {
    // Release the target (best effort), drop what is kept for the DHA, let the deletion go on.
    if (has_finalizer(*dha)) finalize_.release_target(*dha);
    forget(ns, name);
    if (has_finalizer(*dha)) remove_finalizer(client_, metrics_, ref);
    return kube::Done{};
  }
  status::Report report = status_.open(*dha, now());
  if (report.previous.state.last_applied_replicas) ensure_finalizer(ref, dha, report);
  const std::optional<model::DhaSpec> readable = readable_spec(*dha, report);
  if (!readable) return again;
  const model::DhaSpec& spec = *readable;

  // OBSERVE
  const PredictiveContext predictive{kube::uid_of(*dha), report.generation, report.now,
                                     report.previous.state.ready_seconds, options_.sync_period.count()};
  auto observed = observe_.run(ns, name, spec, &predictive, read_notice(ns, name));
  if (const auto* stop = std::get_if<Stop>(&observed)) {
    status_.stopped(report, stop->reason, stop->message, stop->current, &spec);
    return again;
  }
  const auto& [target, topology, signals] = std::get<Observed>(observed);
  const model::Observation& obs = signals.observation;
  if (auto claimed = claimed_by_another(client_, target, *spec.target_ref, ns, name, obs.current_replicas)) {
    status_.stopped(report, claimed->reason, claimed->message, claimed->current, &spec);
    return again;
  }
  const sdk::DhaRef dha_ref{ns, name};
  if (act_.adopt_unrecorded_patch(report.previous.state, target, topology.replicas_path, dha_ref, obs.current_replicas,
                                  report.now))
    spdlog::info(
        "replicas {} are our own unrecorded write (the target shows what our actuator writes): "
        "not a competing writer",
        obs.current_replicas);

  // DECIDE
  const decide::Decision d = decide_on(ns, name, spec, report, topology, obs);
  spdlog::debug("decision {} {} -> {} (raw {}): {}: {}", model::to_string(d.kind), d.current_replicas,
                d.desired_replicas, d.raw_desired_replicas, d.reason, d.message);
  status_.ownership_conflict(report, d, actuators::managed_by(*target.object));

  // ACT
  if (d.apply) {
    ensure_finalizer(ref, dha, report);
    try {
      act_.scale(target, topology.replicas_path, dha_ref, d.current_replicas, d.desired_replicas);
    } catch (const TargetChanged& e) {
      // Decided on a version that is gone: nothing was written. Decide again on a fresh read
      // soon (the cache follows within moments); a count someone else wrote then shows as an
      // ownership conflict.
      spdlog::info("{}/{}: {}; deciding again", ns, name, e.what());
      return kube::RequeueAfter{std::chrono::seconds(1), /*retry=*/true};
    } catch (const std::exception& e) {
      status_.patch_failed(report, d, e.what());
      return again;
    }
    status_.scaled(report, d, target.engine->target.kind, target.ref.name);
  }
  status_.decided(report, spec, d, status::Causes{signals.health_causes, signals.metric_causes}, &obs);
  return again;
}

}  // namespace dha::pipeline
