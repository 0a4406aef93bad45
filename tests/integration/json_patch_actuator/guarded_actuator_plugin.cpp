// A third-party-style plugin pair for the test: an engine adapter for the template's AcmeDB kind
// whose targets are scaled by its own actuator, which plans an RFC 6902 JSON patch guarded by a
// "test" of the replica count it was asked to change — so a count that moved in between makes
// the API server refuse the write instead of overwriting it.
#include <string>

#include "acmedb_fixture.hpp"
#include "dha/sdk/sdk.hpp"

namespace {

namespace sdk = dha::sdk;

class GuardedAcmeDbAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{.id = "guarded-acmedb",
                                        .name = "AcmeDB adapter scaled by a guarded JSON patch",
                                        .version = "0.1.0",
                                        .vendor = "db-autoscaler tests",
                                        .description = "Test fixture",
                                        .config_schema = nullptr};
  GuardedAcmeDbAdapter(const sdk::Host&, const sdk::json::Value&) {}

  std::vector<sdk::TargetKind> targets() const override {
    sdk::TargetKind kind = dha::testsupport::acmedb_target_kind();
    kind.actuator = "guarded-json-patch";
    return {kind};
  }
  sdk::Topology topology(const sdk::ObjectView& target) const override {
    return dha::testsupport::acmedb_topology(target);
  }
  sdk::Queries queries(const sdk::QueryRequest&) const override {
    sdk::Queries q;
    q.driver["ReadConnections"] = R"(sum(acmedb_client_connections{namespace="${namespace}", cluster="${name}"}))";
    return q;
  }
};

class GuardedJsonPatchActuator final : public sdk::Actuator {
 public:
  static constexpr sdk::PluginInfo info{.id = "guarded-json-patch",
                                        .name = "Guarded JSON-patch actuator",
                                        .version = "0.1.0",
                                        .vendor = "db-autoscaler tests",
                                        .description = "Test fixture",
                                        .config_schema = nullptr};
  GuardedJsonPatchActuator(const sdk::Host&, const sdk::json::Value&) {}

  sdk::ActuatorPlan plan(const sdk::ActuatorRequest& request) const override {
    sdk::ActuatorPlan plan;
    if (request.action != sdk::ActuatorRequest::Action::kScale) return plan;
    plan.requests.emplace_back("", "json",
                               R"([{"op": "test", "path": "/spec/replicas", "value": )" +
                                   std::to_string(request.current_replicas.value_or(-1)) +
                                   R"(}, {"op": "replace", "path": "/spec/replicas", "value": )" +
                                   std::to_string(request.desired_replicas) + "}]");
    return plan;
  }
};

}  // namespace

DHA_EXPORT_PLUGINS(GuardedAcmeDbAdapter, GuardedJsonPatchActuator)
