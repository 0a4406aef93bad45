#include "dha/testing/plugin_under_test.hpp"

#include <memory>
#include <optional>
#include <stdexcept>

#include "dha/gates/external_gate.hpp"
#include "plugin_host/plugin_instance.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "plugin_host/range_query_call.hpp"

namespace dha::testing {

struct PluginUnderTest::Impl {
  plugin_host::PluginRegistry registry;  // keeps the library loaded while the instance lives
  std::unique_ptr<plugin_host::PluginInstance> instance;
  std::string id;

  // The capability table, or DHA_UNIMPLEMENTED naming the capability the plugin does not offer.
  template <typename Table>
  const Table& table(const Table* offered, const char* capability) const {
    if (offered == nullptr)
      throw sdk::Error(DHA_UNIMPLEMENTED, "plugin \"" + id + "\" offers no " + capability + " capability");
    return *offered;
  }
  const dha_engine& engine() const { return table(instance->engine(), DHA_EXT_ENGINE); }
  const dha_gate& gate() const { return table(instance->gate(), DHA_EXT_GATE); }
  const dha_actuator& actuator() const { return table(instance->actuator(), DHA_EXT_ACTUATOR); }
  const dha_metrics& metrics() const { return table(instance->metrics(), DHA_EXT_METRICS); }

  // The answer's JSON on success; the plugin's status and message as sdk::Error otherwise.
  static std::string answer(const plugin_host::CallResult& result, const char* call) {
    if (!result.ok())
      throw sdk::Error(result.status,
                       std::string(call) + " failed: " + (result.error.empty() ? "no message" : result.error));
    return result.output;
  }
  // The answer read as the operator reads it (`T::from_json` on the parsed text). An answer the
  // operator cannot read is the plugin's fault, not the test's input: DHA_DATA_LOSS, as the
  // operator's own metric path reports an unreadable answer. The engine calls, older than that
  // rule, keep the status they had in SDK 1.0 (`status_of_garbage` = the parser's own).
  template <typename T>
  T read(const plugin_host::CallResult& result, const char* call,
         std::optional<dha_status> status_of_garbage = DHA_DATA_LOSS) const {
    const std::string text = answer(result, call);
    try {
      return T::from_json(sdk::json::parse(text, call));
    } catch (const sdk::Error& e) {
      throw garbage(call, e.what(), status_of_garbage.value_or(e.status()));
    }
  }
  sdk::Error garbage(const char* call, const std::string& why, dha_status status = DHA_DATA_LOSS) const {
    return sdk::Error(status, "plugin \"" + id + "\" " + call + " answered a document the operator refuses: " + why);
  }
  static constexpr std::optional<dha_status> kParserStatus = std::nullopt;
};

PluginUnderTest::PluginUnderTest(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PluginUnderTest::PluginUnderTest(PluginUnderTest&&) noexcept = default;
PluginUnderTest& PluginUnderTest::operator=(PluginUnderTest&&) noexcept = default;
PluginUnderTest::~PluginUnderTest() = default;

PluginUnderTest PluginUnderTest::load(const std::string& path, FakeHost& host, std::string_view config_json,
                                      const std::string& plugin_id) {
  auto impl = std::make_unique<Impl>();
  try {
    impl->registry.load_file(path);
    const auto& plugins = impl->registry.plugins();
    impl->id = plugin_id;
    if (impl->id.empty()) {
      if (plugins.size() != 1)
        throw std::runtime_error(path + " holds " + std::to_string(plugins.size()) +
                                 " plugins; name the one to create");
      impl->id = plugins.front().id;
    }
    // The FakeHost owns the dha_host; the instance's shared_ptr must not free it.
    std::shared_ptr<const dha_host> borrowed(host.host_for(impl->id), [](const dha_host*) {});
    impl->instance = impl->registry.create(impl->id, std::string(config_json), std::move(borrowed));
  } catch (const sdk::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(e.what());  // PluginError is the host's private type; keep the message
  }
  return PluginUnderTest(std::move(impl));
}

const std::string& PluginUnderTest::id() const { return impl_->id; }

std::vector<std::string> PluginUnderTest::capabilities() const { return impl_->instance->info().capabilities; }

std::vector<sdk::TargetKind> PluginUnderTest::targets() const {
  const auto text = Impl::answer(impl_->instance->call(impl_->engine().targets), "targets");
  try {
    return sdk::targets_from_json(sdk::json::parse(text, "targets"));
  } catch (const sdk::Error& e) {
    throw impl_->garbage("targets", e.what(), e.status());
  }
}

sdk::Topology PluginUnderTest::topology(std::string_view target_json) const {
  return impl_->read<sdk::Topology>(impl_->instance->call(impl_->engine().topology, std::string(target_json)),
                                    "topology", Impl::kParserStatus);
}

sdk::Queries PluginUnderTest::queries(const sdk::QueryRequest& request) const {
  return impl_->read<sdk::Queries>(impl_->instance->call(impl_->engine().queries, request.to_json()), "queries",
                                   Impl::kParserStatus);
}

sdk::Health PluginUnderTest::health(std::string_view target_json, std::string_view object_json) const {
  const auto target = sdk::json::parse(target_json, "health target");
  const auto object = sdk::json::parse(object_json, "health object");
  const sdk::HealthRequest request{&target, &object};
  return impl_->read<sdk::Health>(impl_->instance->call(impl_->engine().health, request.to_json()), "health",
                                  Impl::kParserStatus);
}

sdk::Verdict PluginUnderTest::evaluate(const sdk::GateRequest& request) const {
  const auto text = Impl::answer(impl_->instance->call(impl_->gate().evaluate, request.to_json()), "evaluate");
  // The operator's own reading of a verdict (gates::PluginGate): what it would refuse is refused.
  const auto current = static_cast<std::int32_t>(request.proposal.current_replicas);
  const auto proposed = static_cast<std::int32_t>(request.proposal.replicas);
  const gates::ReadVerdict v = gates::read_verdict(text, current, proposed);
  if (!v.refusal.empty()) throw impl_->garbage("evaluate", v.refusal + " (the operator freezes with GateError)");
  if (v.verdict == "clamp") return sdk::Verdict::clamp(v.replicas, v.reason, v.message);
  if (v.verdict == "freeze") return sdk::Verdict::freeze(v.reason, v.message);
  return sdk::Verdict::pass();
}

sdk::ActuatorPlan PluginUnderTest::plan(const sdk::ActuatorRequest& request) const {
  return impl_->read<sdk::ActuatorPlan>(impl_->instance->call(impl_->actuator().plan, request.to_json()), "plan");
}

sdk::Samples PluginUnderTest::instant_query(const sdk::InstantQuery& query) const {
  return impl_->read<sdk::Samples>(impl_->instance->call(impl_->metrics().instant_query, query.to_json()),
                                   "instant_query");
}

sdk::RangeResult PluginUnderTest::range_query(const sdk::RangeQuery& query) const {
  query.check();
  (void)impl_->metrics();  // "offers no dha.metrics/1 capability" before the ABI 1.0 check
  return impl_->read<sdk::RangeResult>(plugin_host::call_range_query(*impl_->instance, query.to_json()), "range_query");
}

}  // namespace dha::testing
