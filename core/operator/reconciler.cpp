#include "operator/reconciler.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "dha/gates/reasons.hpp"
#include "dha/kube/json.hpp"
#include "dha/model/input_error.hpp"
#include "dha/sdk/actuator_types.hpp"
#include "operator/api_calls.hpp"
#include "operator/builtin_actuators.hpp"
#include "operator/logging.hpp"

namespace dha::op {
namespace {

namespace reasons = gates::reasons;
using model::DecisionKind;

constexpr const char* kNoAdapter = "NoAdapter";
constexpr const char* kNotScalable = "NotScalable";
constexpr const char* kInvalidSpec = "InvalidSpec";

std::int64_t system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool has_finalizer(const rapidjson::Value& obj) {
  const auto* list = kube::find_path(obj, {"metadata", "finalizers"});
  if (list == nullptr || !list->IsArray()) return false;
  for (const auto& f : list->GetArray())
    if (f.IsString() && std::string_view(f.GetString(), f.GetStringLength()) == kFinalizer) return true;
  return false;
}

std::int64_t generation_of(const rapidjson::Value& obj) {
  const auto* g = kube::find_path(obj, {"metadata", "generation"});
  return g != nullptr && g->IsInt64() ? g->GetInt64() : 0;
}

// An annotation's value, or "" when it is absent or not a string.
std::string annotation_of(const rapidjson::Value& object, const char* key) {
  const auto* annotations = kube::find_path(object, {"metadata", "annotations"});
  if (annotations == nullptr || !annotations->IsObject()) return {};
  auto it = annotations->FindMember(key);
  return it != annotations->MemberEnd() && it->value.IsString() ? std::string(it->value.GetString(), it->value.GetStringLength()) : std::string();
}

std::string marker_of(const rapidjson::Value& target) { return annotation_of(target, kManagedByAnnotation); }

std::string format_number(double v) {
  if (std::abs(v - std::round(v)) < 1e-9 && std::abs(v) < 1e15) return fmt::format("{}", static_cast<long long>(std::round(v)));
  return fmt::format("{:.2f}", v);
}

model::Condition condition(const char* type, bool status, std::string reason, std::string message, std::int64_t gen) {
  return model::Condition{type, status ? "True" : "False", std::move(reason), std::move(message), 0, gen};
}

}  // namespace

// Everything one reconcile has learned so far, passed along the steps.
struct Reconciler::Context {
  std::string ns;
  std::string name;
  rapidjson::Document dha;
  std::int64_t now = 0;
  std::int64_t generation = 0;
  model::DhaStatus stored;    // status as read: what a status write compares against
  model::DhaStatus previous;  // stored, plus a patch of ours it does not show yet
  model::DhaStatus next;
  model::DhaSpec spec;
  const EngineBinding* engine = nullptr;
  kube::ResourceRef target_ref;
  kube::ObjectPtr target;  // from the informer cache: shared, read-only
  sdk::Topology topology;
};

std::string metrics_summary(const decide::Decision& d) {
  std::string out;
  for (const auto& m : d.metrics)
    out += (out.empty() ? "" : ", ") + std::string(model::to_string(m.type)) + " " + format_number(m.average) + "/" +
           format_number(m.target);
  return out;
}

std::string dry_run_event_message(const model::DhaSpec& spec, const decide::Decision& d,
                                  const model::DhaStatus& previous) {
  if (!spec.dry_run) return {};
  if (d.kind != DecisionKind::Scale && d.kind != DecisionKind::Rollback) return {};
  if (d.desired_replicas == d.current_replicas) return {};
  if (previous.last_decision && previous.desired_replicas == d.desired_replicas) return {};
  const std::string verb = d.kind == DecisionKind::Rollback ? "roll back" : "scale";
  std::string why;
  if (d.kind == DecisionKind::Rollback || d.limited) {
    why = d.message;
  } else {
    why = metrics_summary(d);
  }
  return fmt::format("would {} {} -> {}: {}", verb, d.current_replicas, d.desired_replicas, why);
}

bool conflict_already_reported(const model::DhaStatus& previous) {
  const auto* c = model::find_condition(previous.conditions, kScalingLimited);
  return c != nullptr && c->status == "True" && c->reason == reasons::kOwnershipConflict;
}

bool adopt_unrecorded_patch(model::DecisionState& state, const rapidjson::Value& target, const std::string& dha_name,
                            std::int32_t current, std::int64_t now) {
  if (!state.last_applied_replicas || *state.last_applied_replicas == current) return false;
  if (marker_of(target) != dha_name) return false;
  if (annotation_of(target, kAppliedReplicasAnnotation) != std::to_string(current)) return false;
  // Our write whose status never landed: it is in flight from now (its time is unknown), so the
  // convergence deadline and the single-flight rule apply to it as to any patch of ours.
  state.last_applied_replicas = current;
  state.last_scale_time = now;
  state.in_flight_since = now;
  return true;
}

bool restore_unpersisted_state(model::DecisionState& from_status, const model::DecisionState& unpersisted) {
  bool restored = false;
  // Recommendations the status never received: without them the stabilization windows would
  // forget what they held (a scale-down before the down window has held, found by the soak).
  const std::int64_t newest_stored =
      from_status.recommendations.empty() ? INT64_MIN : from_status.recommendations.back().time;
  for (const auto& r : unpersisted.recommendations) {
    if (r.time <= newest_stored) continue;
    from_status.recommendations.push_back(r);
    restored = true;
  }
  // What our last patch changed, unless the status already shows it (or a newer patch).
  if (unpersisted.last_scale_time &&
      (!from_status.last_scale_time || *from_status.last_scale_time < *unpersisted.last_scale_time)) {
    from_status.last_applied_replicas = unpersisted.last_applied_replicas;
    from_status.last_scale_time = unpersisted.last_scale_time;
    from_status.in_flight_since = unpersisted.in_flight_since;
    from_status.backoff = unpersisted.backoff;
    restored = true;
  }
  return restored;
}

Reconciler::Reconciler(kube::Client& client, const CachedReader& reader, const PluginSet& plugins,
                       kube::EventRecorder& events, SelfMetrics& metrics, kube::OwnerIndex& owners,
                       ReconcilerOptions options, WatchRequest watch)
    : client_(client),
      reader_(reader),
      plugins_(plugins),
      events_(events),
      metrics_(metrics),
      owners_(owners),
      options_(std::move(options)),
      watch_(std::move(watch)),
      observer_(reader, plugins, metrics, options_.observer),
      status_writer_(client, metrics) {
  if (!options_.now) options_.now = &system_now;
}

kube::ReconcileResult Reconciler::reconcile(const std::string& key) {
  const auto [ns, name] = kube::split_key(key);
  DhaLogScope scope(ns, name);
  const auto started = std::chrono::steady_clock::now();
  kube::ReconcileResult result;
  try {
    result = reconcile_dha(ns, name);
  } catch (const std::exception& e) {
    result = kube::Error{e.what()};
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const bool failed = std::holds_alternative<kube::Error>(result);
  metrics_.reconcile_finished(failed ? "error" : "success", seconds);
  if (failed) spdlog::warn("reconcile failed: {}", std::get<kube::Error>(result).message);
  return result;
}

void Reconciler::forget(const std::string& ns, const std::string& name) {
  {
    std::lock_guard lock(unpersisted_mu_);
    unpersisted_.erase(ns + "/" + name);
  }
  metrics_.forget(ns, name);
  owners_.remove_owner(ns + "/" + name);
}

void Reconciler::record(const rapidjson::Value& dha, kube::EventType type, const std::string& reason,
                        const std::string& message) {
  spdlog::info("event {} {}: {}", type == kube::EventType::Warning ? "Warning" : "Normal", reason, message);
  events_.record(kube::ObjectReference::of(dha), type, reason, message);
}

rapidjson::Document Reconciler::add_finalizer(const kube::ResourceRef& ref) {
  return counted_api_call(metrics_, "update", [&] {
    return client_.update_with_retry(ref, [](rapidjson::Document& obj) {
      if (has_finalizer(obj)) return false;
      auto& a = obj.GetAllocator();
      auto& meta = obj["metadata"];
      if (!meta.HasMember("finalizers") || !meta["finalizers"].IsArray())
        meta.RemoveMember("finalizers"), meta.AddMember("finalizers", rapidjson::Value(rapidjson::kArrayType), a);
      meta["finalizers"].PushBack(rapidjson::Value(kFinalizer, a), a);
      return true;
    });
  });
}

kube::ReconcileResult Reconciler::reconcile_dha(const std::string& ns, const std::string& name) {
  const kube::ResourceRef ref = kube::resources::dhas(ns).named(name);
  auto dha = counted_api_call(metrics_, "get", [&] { return client_.get_if_exists(ref); });
  if (!dha) {
    forget(ns, name);
    return kube::Done{};
  }
  if (kube::find_path(*dha, {"metadata", "deletionTimestamp"}) != nullptr) {
    if (has_finalizer(*dha)) return finalize(*dha);
    forget(ns, name);
    return kube::Done{};
  }
  if (!has_finalizer(*dha)) dha = add_finalizer(ref);

  Context ctx;
  ctx.ns = ns;
  ctx.name = name;
  ctx.dha = std::move(*dha);
  ctx.now = options_.now();
  ctx.generation = generation_of(ctx.dha);
  if (const auto* status = kube::find_path(ctx.dha, {"status"}); status != nullptr && status->IsObject()) {
    try {
      ctx.previous = model::parse_status(*status);
    } catch (const std::exception& e) {
      // A status we cannot read is rebuilt from scratch rather than wedging the DHA.
      spdlog::warn("status unreadable, starting from an empty one: {}", e.what());
    }
  }
  ctx.stored = ctx.previous;
  {
    std::lock_guard lock(unpersisted_mu_);
    if (auto it = unpersisted_.find(ns + "/" + name); it != unpersisted_.end()) {
      if (restore_unpersisted_state(ctx.previous.state, it->second))
        spdlog::info("status does not show our last decision state yet (a status write failed); using it");
      else
        unpersisted_.erase(it);
    }
  }
  ctx.next = ctx.previous;

  const auto* spec_json = kube::find_path(ctx.dha, {"spec"});
  try {
    if (spec_json == nullptr) throw model::InputError("spec", "required");
    ctx.spec = model::parse_spec(*spec_json);
  } catch (const model::InputError& e) {
    return stop(ctx, kInvalidSpec, e.what());
  }
  const model::TargetRef& target = *ctx.spec.target_ref;
  ctx.engine = plugins_.engine_for(target.api_group, target.kind);
  if (ctx.engine == nullptr) {
    return stop(ctx, kNoAdapter,
                fmt::format("no engine adapter handles {}/{}; the loaded adapters handle: {}",
                            target.api_group.empty() ? model::kDefaultApiGroup : target.api_group, target.kind,
                            plugins_.handled_kinds()));
  }
  const auto& kind = ctx.engine->target;
  ctx.target_ref = kube::ResourceRef{kind.api_group, kind.version, kind.plural, ns, target.name};
  owners_.set(ns + "/" + name, {kube::secondary_key(ctx.target_ref, ns, target.name)});
  if (watch_) watch_(ctx.target_ref.collection().in_namespace(""));

  try {
    ctx.target = reader_.get(ctx.target_ref);
  } catch (const kube::ApiError& e) {
    return stop(ctx, kNotScalable, fmt::format("get {} {}: {}", kind.kind, target.name, e.what()));
  }
  if (!ctx.target) return stop(ctx, kNotScalable, fmt::format("get {} {}: not found", kind.kind, target.name));

  const auto* engine = ctx.engine->instance;
  const auto topo = engine->call(engine->engine()->topology, kube::to_json(*ctx.target));
  if (!topo.ok()) return stop(ctx, kNotScalable, topo.error.empty() ? "the engine adapter cannot read the target" : topo.error);
  try {
    ctx.topology = sdk::Topology::from_json(sdk::json::parse(topo.output, "topology"));
  } catch (const std::exception& e) {
    return stop(ctx, kNotScalable, std::string("engine adapter answer unreadable: ") + e.what());
  }
  const std::optional<std::int32_t> current =
      ctx.topology.current_replicas
          ? std::optional<std::int32_t>(static_cast<std::int32_t>(
                std::clamp<std::int64_t>(*ctx.topology.current_replicas, 0, INT32_MAX)))
          : std::nullopt;
  if (!ctx.topology.scalable) return stop(ctx, kNotScalable, ctx.topology.reason, current);
  // Part A 11: a target without a replicas value is not "0 replicas".
  if (!current) return stop(ctx, kNotScalable, "target has no replicas value");
  return decide_and_act(ctx);
}

kube::ReconcileResult Reconciler::stop(Context& ctx, const std::string& reason, const std::string& message,
                                       std::optional<std::int32_t> current) {
  spdlog::info("not scaling: {}: {}", reason, message);
  auto& s = ctx.next;
  if (current) s.current_replicas = *current;
  s.desired_replicas = s.current_replicas;
  s.observed_generation = ctx.generation;
  model::set_condition(s.conditions, condition(kScalingActive, false, reason, message, ctx.generation), ctx.now);
  // AbleToScale follows, so that the condition and the frozen gauge agree (Part A 6).
  model::set_condition(s.conditions,
                       condition(kAbleToScale, false, reason, "target is not scalable; not scaling", ctx.generation),
                       ctx.now);
  for (auto& c : s.conditions) c.observed_generation = ctx.generation;
  status_writer_.write(ctx.dha, ctx.stored, s);
  metrics_.set_dha(ctx.ns, ctx.name, DhaGauges{s.current_replicas, s.desired_replicas, false, true});
  metrics_.clear_metrics(ctx.ns, ctx.name);
  return kube::RequeueAfter{options_.sync_period};
}

kube::ReconcileResult Reconciler::decide_and_act(Context& ctx) {
  const ObserveResult observed = observer_.observe({ctx.ns, ctx.name, ctx.spec, *ctx.engine, *ctx.target, ctx.topology});
  std::vector<std::string> secondaries{kube::secondary_key(ctx.target_ref, ctx.ns, ctx.target_ref.name)};
  if (observed.health_object) {
    secondaries.push_back(kube::secondary_key(*observed.health_object, ctx.ns, observed.health_object->name));
    if (watch_) watch_(observed.health_object->collection().in_namespace(""));
  }
  owners_.set(ctx.ns + "/" + ctx.name, secondaries);
  for (const auto& problem : observed.problems) spdlog::info("observe: {}", problem);
  for (const auto& note : observed.notes) spdlog::debug("observe: {}", note);

  const model::Observation& obs = observed.observation;
  if (adopt_unrecorded_patch(ctx.previous.state, *ctx.target, ctx.name, obs.current_replicas, ctx.now))
    spdlog::info("replicas {} are our own unrecorded write (the {} annotation): not a competing writer",
                 obs.current_replicas, kAppliedReplicasAnnotation);
  decide::DecideOptions options;
  options.chain = &plugins_.chain();
  options.dha_namespace = ctx.ns;
  options.dha_name = ctx.name;
  const decide::Decision d = decide::decide(ctx.spec, obs, ctx.previous.state, ctx.now, options);
  spdlog::debug("decision {} {} -> {} (raw {}): {}: {}", model::to_string(d.kind), d.current_replicas,
                d.desired_replicas, d.raw_desired_replicas, d.reason, d.message);

  // The conflict latch lives in status (ScalingLimited=OwnershipConflict), so neither a restart
  // nor a failover re-emits the event (Part A 1).
  if (d.ownership_conflict && !conflict_already_reported(ctx.previous)) {
    record(ctx.dha, kube::EventType::Warning, "OwnershipConflict",
           fmt::format("replicas changed to {} by a competing writer (marker=\"{}\"); not entering a write war",
                       d.current_replicas, marker_of(*ctx.target)));
  }

  const DhaGauges gauges{d.current_replicas, d.desired_replicas, d.limited || d.ownership_conflict, !d.able_to_scale};
  if (d.apply) {
    try {
      actuate(*ctx.engine, ctx.target_ref, *ctx.target, ctx.topology.replicas_path, ctx.ns, ctx.name, false,
              d.current_replicas, d.desired_replicas);
    } catch (const std::exception& e) {
      // Nothing is persisted: the state moves only once the patch is in (the next cycle retries).
      record(ctx.dha, kube::EventType::Warning, "PatchFailed", e.what());
      metrics_.set_dha(ctx.ns, ctx.name, DhaGauges{d.current_replicas, d.current_replicas, gauges.limited, true});
      metrics_.count_decision(ctx.ns, ctx.name, std::string(model::to_string(d.kind)), "PatchFailed");
      return kube::RequeueAfter{options_.sync_period};
    }
    const bool rollback = d.kind == DecisionKind::Rollback;
    record(ctx.dha, kube::EventType::Normal, "Scaled",
           fmt::format("{} {}/{} replicas {} -> {}", rollback ? "rolled back" : "scaled", ctx.engine->target.kind,
                       ctx.target_ref.name, d.current_replicas, d.desired_replicas));
  }
  if (const std::string msg = dry_run_event_message(ctx.spec, d, ctx.previous); !msg.empty())
    record(ctx.dha, kube::EventType::Normal, "DryRunScale", msg);

  model::DhaStatus& s = ctx.next;
  decide::store_in_status(s, d, ctx.now, ctx.generation);
  model::set_condition(s.conditions, condition(kScalingActive, true, reasons::kReady, "target is scalable", ctx.generation),
                       ctx.now);
  for (auto& c : s.conditions) c.observed_generation = ctx.generation;
  keep_decision_time(ctx.previous, s);
  // Until the status write lands, this state exists only here (see unpersisted_).
  {
    std::lock_guard lock(unpersisted_mu_);
    unpersisted_[ctx.ns + "/" + ctx.name] = s.state;
  }
  status_writer_.write(ctx.dha, ctx.stored, s);
  {
    std::lock_guard lock(unpersisted_mu_);
    unpersisted_.erase(ctx.ns + "/" + ctx.name);
  }

  metrics_.set_dha(ctx.ns, ctx.name, gauges);
  metrics_.clear_metrics(ctx.ns, ctx.name);
  for (const auto& m : d.metrics)
    metrics_.set_metric(ctx.ns, ctx.name, std::string(model::to_string(m.type)), m.average, m.target);
  metrics_.count_decision(ctx.ns, ctx.name, std::string(model::to_string(d.kind)), d.reason);
  return kube::RequeueAfter{options_.sync_period};
}

void Reconciler::actuate(const EngineBinding& engine, const kube::ResourceRef& target_ref,
                         const rapidjson::Value& target, const std::string& replicas_path, const std::string& ns,
                         const std::string& name, bool release, std::int32_t current, std::int32_t desired) {
  const auto* actuator = plugins_.actuator(engine.target.actuator);
  if (actuator == nullptr) throw std::runtime_error("actuator \"" + engine.target.actuator + "\" is not loaded");
  sdk::ActuatorRequest request;
  request.action = release ? sdk::ActuatorRequest::Action::kRelease : sdk::ActuatorRequest::Action::kScale;
  request.dha = sdk::DhaRef{ns, name};
  request.target = &target;
  request.replicas_path = replicas_path;
  request.current_replicas = current;
  request.desired_replicas = desired;
  const auto result = actuator->call(actuator->actuator()->plan, request.to_json());
  if (!result.ok()) throw std::runtime_error("actuator " + engine.target.actuator + ": " + result.error);
  const auto plan = sdk::ActuatorPlan::from_json(sdk::json::parse(result.output, "actuator plan"));
  for (const auto& step : plan.requests) {
    const std::string body = sdk::json::stringify(step.body);
    counted_api_call(metrics_, "patch", [&] {
      if (step.patch_type == "json") return client_.json_patch(target_ref, body, step.subresource);
      if (step.subresource == "scale") return client_.patch_scale(target_ref, body);
      if (step.subresource == "status") return client_.patch_status(target_ref, body);
      return client_.merge_patch(target_ref, body);
    });
  }
}

// BEHAVIOUR §3.3 step 2 and §3.9: release the target (best effort), drop gauges, remove the
// finalizer.
kube::ReconcileResult Reconciler::finalize(const rapidjson::Value& dha) {
  const std::string ns = kube::namespace_of(dha);
  const std::string name = kube::name_of(dha);
  try {
    const auto* spec_json = kube::find_path(dha, {"spec"});
    if (spec_json == nullptr) throw std::runtime_error("no spec");
    const model::DhaSpec spec = model::parse_spec(*spec_json);
    const EngineBinding* engine = plugins_.engine_for(spec.target_ref->api_group, spec.target_ref->kind);
    if (engine != nullptr) {
      const kube::ResourceRef ref{engine->target.api_group, engine->target.version, engine->target.plural, ns,
                                  spec.target_ref->name};
      auto target = counted_api_call(metrics_, "get", [&] { return client_.get_if_exists(ref); });
      if (target) {
        std::string replicas_path = "spec.replicas";
        const auto topo = engine->instance->call(engine->instance->engine()->topology, kube::to_json(*target));
        if (topo.ok()) replicas_path = sdk::Topology::from_json(sdk::json::parse(topo.output, "topology")).replicas_path;
        actuate(*engine, ref, *target, replicas_path, ns, name, true, 0, 0);
        spdlog::info("released {} {}: managed-by marker cleared", engine->target.kind, ref.name);
      }
    }
  } catch (const std::exception& e) {
    spdlog::warn("releasing the target failed (finalizer removed anyway): {}", e.what());
  }
  forget(ns, name);
  const kube::ResourceRef ref = kube::resources::dhas(ns).named(name);
  try {
    counted_api_call(metrics_, "update", [&] {
      return client_.update_with_retry(ref, [](rapidjson::Document& obj) {
        auto* list = obj["metadata"].HasMember("finalizers") ? &obj["metadata"]["finalizers"] : nullptr;
        if (list == nullptr || !list->IsArray()) return false;
        bool removed = false;
        for (auto it = list->Begin(); it != list->End();) {
          if (it->IsString() && std::string_view(it->GetString()) == kFinalizer) {
            it = list->Erase(it);
            removed = true;
          } else {
            ++it;
          }
        }
        return removed;
      });
    });
  } catch (const kube::ApiError& e) {
    if (!kube::is_not_found(e)) throw;
  }
  return kube::Done{};
}

}  // namespace dha::op
