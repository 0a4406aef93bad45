#pragma once

// Test kit: a plugin shared object loaded from a path exactly as the operator loads it (same
// loader, same ABI and descriptor checks, same configuration validation with defaults filled
// in), with its calls made through the SDK's typed views.
//
//   dha::testing::FakeHost host;
//   auto plugin = dha::testing::PluginUnderTest::load("build/acmedb.so", host, R"({"minQuorum": 2})");
//   dha::sdk::Topology t = plugin.topology(R"({"metadata": {"name": "orders"}, "spec": {"replicas": 3}})");
//
// Link dha::testing::kit. A refused file or configuration throws std::runtime_error with the
// operator's message; a capability call that fails throws dha::sdk::Error with the plugin's
// status and message.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dha/sdk/engine_types.hpp"
#include "dha/testing/fake_host.hpp"
#include "dha/testing/kit_export.hpp"

namespace dha::testing {

class DHA_TESTING_API PluginUnderTest {
 public:
  // `plugin_id` may be empty when the library holds exactly one plugin. `config_json` is the
  // plugin's own configuration object ("" or "{}" for the defaults). `host` must outlive the
  // returned object: it receives the plugin's log lines.
  static PluginUnderTest load(const std::string& path, FakeHost& host, std::string_view config_json = "{}",
                              const std::string& plugin_id = "");

  PluginUnderTest(PluginUnderTest&&) noexcept;
  PluginUnderTest& operator=(PluginUnderTest&&) noexcept;
  ~PluginUnderTest();

  const std::string& id() const;
  // Capability ids the descriptor declares, e.g. {"dha.engine/1"}.
  std::vector<std::string> capabilities() const;

  // dha.engine/1, through sdk::*::from_json as the operator reads the answers. Throws
  // dha::sdk::Error when the plugin has no engine capability or the call fails.
  std::vector<sdk::TargetKind> targets() const;
  sdk::Topology topology(std::string_view target_json) const;
  sdk::Queries queries(const sdk::QueryRequest& request) const;
  sdk::Health health(std::string_view target_json, std::string_view object_json) const;

 private:
  struct Impl;
  explicit PluginUnderTest(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dha::testing
