#include "dha/testing/plugin_under_test.hpp"

#include <memory>
#include <stdexcept>

#include "plugin_host/plugin_instance.hpp"
#include "plugin_host/plugin_registry.hpp"

namespace dha::testing {

struct PluginUnderTest::Impl {
  plugin_host::PluginRegistry registry;  // keeps the library loaded while the instance lives
  std::unique_ptr<plugin_host::PluginInstance> instance;
  std::string id;

  const dha_engine& engine() const {
    if (instance->engine() == nullptr)
      throw sdk::Error(DHA_UNIMPLEMENTED, "plugin \"" + id + "\" offers no dha.engine/1 capability");
    return *instance->engine();
  }
  // The answer's JSON on success; the plugin's status and message as sdk::Error otherwise.
  static std::string answer(const plugin_host::CallResult& result, const char* call) {
    if (!result.ok())
      throw sdk::Error(result.status, std::string(call) + " failed: " + (result.error.empty() ? "no message" : result.error));
    return result.output;
  }
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
  return sdk::targets_from_json(sdk::json::parse(text, "targets"));
}

sdk::Topology PluginUnderTest::topology(std::string_view target_json) const {
  const auto text = Impl::answer(impl_->instance->call(impl_->engine().topology, std::string(target_json)), "topology");
  return sdk::Topology::from_json(sdk::json::parse(text, "topology"));
}

sdk::Queries PluginUnderTest::queries(const sdk::QueryRequest& request) const {
  const auto text = Impl::answer(impl_->instance->call(impl_->engine().queries, request.to_json()), "queries");
  return sdk::Queries::from_json(sdk::json::parse(text, "queries"));
}

sdk::Health PluginUnderTest::health(std::string_view target_json, std::string_view object_json) const {
  const auto target = sdk::json::parse(target_json, "health target");
  const auto object = sdk::json::parse(object_json, "health object");
  const sdk::HealthRequest request{&target, &object};
  const auto text = Impl::answer(impl_->instance->call(impl_->engine().health, request.to_json()), "health");
  return sdk::Health::from_json(sdk::json::parse(text, "health"));
}

}  // namespace dha::testing
