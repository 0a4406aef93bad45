#include "dha/testing/pipeline.hpp"

#include <dlfcn.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <filesystem>
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

}  // namespace

struct Pipeline::Parts {
  explicit Parts(const PipelineOptions& o) : clock(o.start_unix_seconds), kube_clock(clock) {}

  ManualClock clock;
  ManualKubeClock kube_clock;
  telemetry::Registry registry;
  // The operator's own wiring; no informers are added, so every read is a GET, deterministic
  // for one reconcile at a time.
  std::unique_ptr<op::PipelineWiring> wiring;
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
  try {
    result = parts_->wiring->reconciler->reconcile(ns + "/" + dha_name);
  } catch (const std::exception& e) {
    result = kube::Error{e.what()};  // the controller treats a throwing reconcile the same way
  }
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

std::string kit_plugin_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&kit_plugin_dir), &info) != 0 && info.dli_fname != nullptr) {
    const auto installed = std::filesystem::path(info.dli_fname).parent_path() / "dha-sdk" / "plugins";
    if (std::filesystem::exists(installed)) return installed.string();
  }
  return DHA_TESTKIT_BUILD_PLUGIN_DIR;  // inside db-autoscaler's own build tree
}

}  // namespace dha::testing
