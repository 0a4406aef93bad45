#include "dha/testing/pipeline.hpp"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "dha/kube/client.hpp"
#include "dha/kube/clock.hpp"
#include "dha/kube/controller.hpp"
#include "dha/kube/json.hpp"
#include "dha/sdk/json.hpp"
#include "dha/telemetry/registry.hpp"
#include "operator/pipeline_wiring.hpp"

namespace dha::testing {
namespace {

// The manual clock as dha::kube sees time (Event timestamps and aggregation), so everything the
// pipeline does happens at the test's time.
class ManualKubeClock final : public kube::Clock {
 public:
  explicit ManualKubeClock(const ManualClock& clock) : clock_(clock) {}
  kube::TimePoint now() const override { return kube::TimePoint{} + std::chrono::seconds(clock_.now()); }
  std::chrono::system_clock::time_point wall_now() const override {
    return std::chrono::system_clock::time_point{} + std::chrono::seconds(clock_.now());
  }

 private:
  const ManualClock& clock_;
};

kube::ResourceRef to_ref(const ObjectRef& o) { return {o.group, o.version, o.plural, o.namespace_name, o.name}; }

// (name, count) of every Event in `ns` about `dha`: what a reconcile added shows as a new name
// or a higher count.
std::map<std::string, std::int64_t> event_counts(kube::Client& client, const std::string& ns, const std::string& dha) {
  std::map<std::string, std::int64_t> out;
  kube::ListPage page;
  try {
    page = client.list_all(kube::resources::events(ns));
  } catch (const std::exception&) {
    return out;  // no Events readable: nothing to tell apart (the reconcile itself reports its errors)
  }
  const auto* items = kube::find_path(page.list, {"items"});
  if (items == nullptr || !items->IsArray()) return out;
  for (const auto& e : items->GetArray()) {
    const auto* name = kube::find_path(e, {"metadata", "name"});
    const auto* about = kube::find_path(e, {"involvedObject", "name"});
    const auto* count = kube::find_path(e, {"count"});
    if (name == nullptr || !name->IsString() || about == nullptr || !about->IsString() ||
        std::string_view(about->GetString()) != dha)
      continue;
    out[name->GetString()] = count != nullptr && count->IsInt64() ? count->GetInt64() : 1;
  }
  return out;
}

std::string string_at(const rapidjson::Value& v, std::initializer_list<std::string_view> path) {
  const auto* at = kube::find_path(v, path);
  return at != nullptr && at->IsString() ? std::string(at->GetString()) : std::string();
}

std::optional<std::int64_t> int_at(const rapidjson::Value& v, std::initializer_list<std::string_view> path) {
  const auto* at = kube::find_path(v, path);
  if (at == nullptr || !at->IsNumber()) return std::nullopt;
  return at->IsInt64() ? at->GetInt64() : static_cast<std::int64_t>(at->GetDouble());
}

// A Kubernetes quantity ("250", "1500m", "2k", "1Gi") or a JSON number as a double.
std::optional<double> quantity(const rapidjson::Value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->IsNumber()) return v->GetDouble();
  if (!v->IsString()) return std::nullopt;
  const std::string text = v->GetString();
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  static const std::map<std::string, double> suffixes{{"", 1},           {"m", 1e-3},         {"k", 1e3},
                                                      {"M", 1e6},        {"G", 1e9},          {"Ki", 1024.0},
                                                      {"Mi", 1048576.0}, {"Gi", 1073741824.0}};
  const auto scale = suffixes.find(end);
  return scale == suffixes.end() ? std::nullopt : std::optional<double>(number * scale->second);
}

EventRecord record_of(const rapidjson::Value& event, const rapidjson::Value& dha) {
  EventRecord r;
  r.dha = string_at(event, {"involvedObject", "name"});
  r.reason = string_at(event, {"reason"});
  r.type = string_at(event, {"type"});
  r.message = string_at(event, {"message"});
  r.count = int_at(event, {"count"}).value_or(1);
  r.from = int_at(dha, {"status", "currentReplicas"});
  r.to = int_at(dha, {"status", "lastDecision", "desiredReplicas"});
  if (!r.to) r.to = int_at(dha, {"status", "desiredReplicas"});
  r.decision = string_at(dha, {"status", "lastDecision", "kind"});
  r.decision_reason = string_at(dha, {"status", "lastDecision", "reason"});
  const auto* current = kube::find_path(dha, {"status", "currentMetrics"});
  const auto* spec_metrics = kube::find_path(dha, {"spec", "metrics"});
  if (current != nullptr && current->IsArray()) {
    for (const auto& m : current->GetArray()) {
      MetricReading reading;
      reading.type = string_at(m, {"type"});
      reading.value = quantity(kube::find_path(m, {"averageValue"})).value_or(0);
      if (spec_metrics != nullptr && spec_metrics->IsArray())
        for (const auto& s : spec_metrics->GetArray())
          if (string_at(s, {"type"}) == reading.type) {
            reading.target = quantity(kube::find_path(s, {"target", "averageValue"}));
            if (!reading.target) reading.target = quantity(kube::find_path(s, {"target", "averageUtilization"}));
          }
      r.metrics.push_back(std::move(reading));
    }
  }
  return r;
}

}  // namespace

struct Pipeline::Parts {
  explicit Parts(const PipelineOptions& o) : clock(o.start_unix_seconds), kube_clock(clock) {}

  ManualClock clock;
  ManualKubeClock kube_clock;
  telemetry::Registry registry;
  // The operator's own wiring; no informers are added, so every read is a GET, deterministic
  // for one reconcile at a time.
  std::unique_ptr<op::PipelineWiring> wiring;
  // What the reconciles wrote, with the decision behind each Event (event_records()).
  std::vector<std::pair<std::string, EventRecord>> events;  // (namespace, record)
};

Pipeline::Pipeline(PipelineOptions options) {
  if (options.start_unix_seconds == 0) options.start_unix_seconds = ManualClock().now();
  if (options.kubeconfig.empty()) throw std::runtime_error("Pipeline: options.kubeconfig is required");
  spdlog::set_level(spdlog::level::from_str(options.log_level));
  parts_ = std::make_unique<Parts>(options);
  Parts& p = *parts_;

  op::PipelineWiringOptions wo;
  wo.plugins.dirs = options.plugin_dirs;
  wo.plugins.dirs.push_back(kit_plugin_dir());
  wo.plugins.names = op::split_plugin_names(options.plugins);
  wo.plugins.config_json = options.plugin_config_json;
  wo.plugins.config_origin = "PipelineOptions::plugin_config_json";
  wo.kube.kubeconfig = options.kubeconfig;
  wo.sync_period = options.sync_period;
  wo.requeue_at_namespace_phase = false;  // the kit's default; requeue_at_namespace_phase() turns it on
  wo.clock = &p.kube_clock;
  p.wiring = std::make_unique<op::PipelineWiring>(p.registry, std::move(wo));
}

Pipeline::~Pipeline() = default;

ManualClock& Pipeline::clock() { return parts_->clock; }

void Pipeline::requeue_at_namespace_phase(bool on) { parts_->wiring->reconciler->requeue_at_namespace_phase(on); }

ReconcileOutcome Pipeline::reconcile(const std::string& ns, const std::string& dha_name) {
  kube::ReconcileResult result;
  auto& client = *parts_->wiring->client;
  const auto before = event_counts(client, ns, dha_name);
  try {
    result = parts_->wiring->reconciler->reconcile(ns + "/" + dha_name);
  } catch (const std::exception& e) {
    result = kube::Error{e.what()};  // the controller treats a throwing reconcile the same way
  }
  record_new_events(ns, dha_name, before);
  return std::visit(
      [](const auto& r) -> ReconcileOutcome {
        using T = std::decay_t<decltype(r)>;
        ReconcileOutcome out;
        if constexpr (std::is_same_v<T, kube::RequeueAfter>) {
          out.kind = ReconcileOutcome::Kind::kRequeueAfter;
          out.requeue_after = std::chrono::duration_cast<std::chrono::milliseconds>(r.after);
        } else if constexpr (std::is_same_v<T, kube::Error>) {
          out.kind = ReconcileOutcome::Kind::kError;
          out.error = r.message;
          out.terminal = r.terminal;
        }
        return out;
      },
      result);
}

std::string Pipeline::create(const ObjectRef& collection, std::string_view object_json) {
  return kube::to_json(parts_->wiring->client->create(to_ref(collection), kube::parse_json(object_json)));
}

std::string Pipeline::get(const ObjectRef& object) {
  return kube::to_json(parts_->wiring->client->get(to_ref(object)));
}

std::string Pipeline::merge_patch(const ObjectRef& object, std::string_view patch_json) {
  return kube::to_json(parts_->wiring->client->merge_patch(to_ref(object), patch_json));
}

std::string Pipeline::patch_status(const ObjectRef& object, std::string_view patch_json) {
  return kube::to_json(parts_->wiring->client->patch_status(to_ref(object), patch_json));
}

std::optional<std::int64_t> Pipeline::read_int(const ObjectRef& object, std::string_view dotted_path) {
  const auto doc = parts_->wiring->client->get(to_ref(object));
  const auto* at = sdk::json::find_path(doc, dotted_path);
  if (at == nullptr || !at->IsInt64()) return std::nullopt;
  return at->GetInt64();
}

std::string Pipeline::condition(const std::string& ns, const std::string& dha_name, const std::string& type,
                                const std::string& field) {
  const auto dha = parts_->wiring->client->get(kube::resources::dhas(ns).named(dha_name));
  const auto* conditions = kube::find_path(dha, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const auto& c : conditions->GetArray()) {
    const auto* t = kube::find_path(c, {"type"});
    const auto* v = kube::find_path(c, {field});
    if (t != nullptr && t->IsString() && t->GetString() == type && v != nullptr && v->IsString()) return v->GetString();
  }
  return "";
}

std::vector<std::string> Pipeline::events(const std::string& ns, const std::string& reason) {
  const auto page = parts_->wiring->client->list_all(kube::resources::events(ns));
  std::vector<std::string> out;
  const auto* items = kube::find_path(page.list, {"items"});
  if (items == nullptr || !items->IsArray()) return out;
  for (const auto& e : items->GetArray()) {
    const auto* r = kube::find_path(e, {"reason"});
    const auto* m = kube::find_path(e, {"message"});
    if (r != nullptr && r->IsString() && r->GetString() == reason && m != nullptr && m->IsString())
      out.emplace_back(m->GetString());
  }
  return out;
}

void Pipeline::record_new_events(const std::string& ns, const std::string& dha_name,
                                 const std::map<std::string, std::int64_t>& before) {
  auto& client = *parts_->wiring->client;
  const auto after = event_counts(client, ns, dha_name);
  std::vector<std::string> changed;
  for (const auto& [name, count] : after) {
    const auto was = before.find(name);
    if (was == before.end() || was->second < count) changed.push_back(name);
  }
  if (changed.empty()) return;
  rapidjson::Document dha;
  try {
    dha = client.get(kube::resources::dhas(ns).named(dha_name));
  } catch (const std::exception&) {
    dha = kube::parse_json("{}");  // deleted in the reconcile: the Event is still recorded
  }
  std::vector<EventRecord> fresh;
  for (const auto& name : changed) {
    try {
      fresh.push_back(record_of(client.get(kube::resources::events(ns).named(name)), dha));
    } catch (const std::exception&) {
      // gone between the list and the read: nothing to record
    }
  }
  for (auto& r : fresh) parts_->events.emplace_back(ns, std::move(r));
}

std::vector<EventRecord> Pipeline::event_records(const std::string& ns, const std::string& reason) {
  std::vector<EventRecord> out;
  for (const auto& [event_ns, r] : parts_->events)
    if (event_ns == ns && (reason.empty() || r.reason == reason)) out.push_back(r);
  return out;
}

std::vector<ConditionRecord> Pipeline::conditions(const std::string& ns, const std::string& dha_name) {
  const auto dha = parts_->wiring->client->get(kube::resources::dhas(ns).named(dha_name));
  std::vector<ConditionRecord> out;
  const auto* conditions = kube::find_path(dha, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return out;
  for (const auto& c : conditions->GetArray())
    out.push_back({string_at(c, {"type"}), string_at(c, {"status"}), string_at(c, {"reason"}),
                   string_at(c, {"message"}), int_at(c, {"observedGeneration"}).value_or(0)});
  return out;
}

std::string kit_plugin_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&kit_plugin_dir), &info) != 0 && info.dli_fname != nullptr) {
    // Installed: the library is lib/dha-sdk/kit/libdha-testkit.so, the plugins lib/dha-sdk/plugins.
    const auto installed = std::filesystem::path(info.dli_fname).parent_path().parent_path() / "plugins";
    if (std::filesystem::exists(installed)) return installed.string();
  }
  return DHA_TESTKIT_BUILD_PLUGIN_DIR;  // inside db-autoscaler's own build tree
}

}  // namespace dha::testing
