// A fixture engine adapter whose load query is not aggregated in PromQL: one series per pod and
// database reaches the host, which must combine them the same way in the operator and in
// `db-autoscaler metrics`.
#include "acmedb_fixture.hpp"
#include "dha/sdk/sdk.hpp"

namespace {

namespace sdk = dha::sdk;

class PerPodAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{.id = "perpod-acmedb",
                                        .name = "AcmeDB adapter with per-pod series",
                                        .version = "0.1.0",
                                        .vendor = "db-autoscaler tests",
                                        .description = "Test fixture",
                                        .config_schema = nullptr};
  PerPodAdapter(const sdk::Host&, const sdk::json::Value&) {}

  std::vector<sdk::TargetKind> targets() const override { return {dha::testsupport::acmedb_target_kind()}; }
  sdk::Topology topology(const sdk::ObjectView& target) const override {
    return dha::testsupport::acmedb_topology(target);
  }
  sdk::Queries queries(const sdk::QueryRequest&) const override {
    sdk::Queries q;
    q.driver["ReadConnections"] = R"(acmedb_client_connections{namespace="${namespace}", cluster="${name}"})";
    return q;
  }
};

}  // namespace

DHA_EXPORT_PLUGINS(PerPodAdapter)
