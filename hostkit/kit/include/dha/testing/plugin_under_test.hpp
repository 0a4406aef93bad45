#pragma once

// Test kit: a plugin shared object loaded from a path exactly as the operator loads it (same
// loader, same ABI and descriptor checks, same configuration validation with defaults filled
// in), with its calls made through the SDK's typed views.
//
//   dha::testing::FakeHost host;
//   auto plugin = dha::testing::PluginUnderTest::load("build/acmedb.so", host, R"({"minQuorum": 2})");
//   dha::sdk::Topology t = plugin.topology(R"({"metadata": {"name": "orders"}, "spec": {"replicas": 3}})");
//
// Every capability has its direct call, made through the operator's plugin host exactly as the
// operator makes it (same C ABI call, same answer parsing):
//
//   dha::sdk::Verdict v = gate.evaluate(request);               // dha.gate/1
//   dha::sdk::ActuatorPlan p = actuator.plan(request);          // dha.actuator/1
//   dha::sdk::Samples s = source.instant_query(query);          // dha.metrics/1
//   dha::sdk::RangeResult r = source.range_query(range);        // dha.metrics/1, ABI 1.1
//
// Link dha::testing::kit. A refused file or configuration throws std::runtime_error with the
// operator's message. A capability call throws dha::sdk::Error: DHA_UNIMPLEMENTED when the
// plugin lacks the capability (or, for range_query, was built against ABI 1.0), the plugin's
// own status and message when the call fails, and DHA_DATA_LOSS naming the call when the answer
// is a document the operator would not accept (not JSON, a wrong shape, a gate verdict the
// operator refuses such as a clamp away from currentReplicas).
//
// Time: a direct call uses exactly the time it is given (GateRequest::now, RangeQuery start and
// end); it never reads FakeHost::clock() or the wall clock. Pass host.clock().now() to make a
// call at the test's time. An instant query is evaluated by the metric source at its own
// current time (the ABI has no evaluation time for it), so with VictoriaMetrics that is the wall
// clock: import samples with unix_millis_now().

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dha/sdk/actuator_types.hpp"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/gate_types.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "dha/sdk/range_query_types.hpp"
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

  // dha.gate/1: the verdict on `request` (its spec, observation, state, proposal and now). A
  // verdict the operator would refuse (unknown verdict, a reason that is not CamelCase, a clamp
  // outside [min(current, proposed), max(current, proposed)]) throws DHA_DATA_LOSS with the
  // operator's words: in the operator it would freeze the DHA with GateError.
  sdk::Verdict evaluate(const sdk::GateRequest& request) const;
  // dha.actuator/1: the requests the operator would carry out on `request.target`.
  sdk::ActuatorPlan plan(const sdk::ActuatorRequest& request) const;
  // dha.metrics/1. instant_query is evaluated at the source's current time; range_query from
  // query.start to query.end (checked with RangeQuery::check() first, as the host's callers do).
  sdk::Samples instant_query(const sdk::InstantQuery& query) const;
  sdk::RangeResult range_query(const sdk::RangeQuery& query) const;

 private:
  struct Impl;
  explicit PluginUnderTest(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dha::testing
