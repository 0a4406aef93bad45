// A fixture engine adapter whose load query is not aggregated in PromQL: one series per pod and
// database reaches the host, which must combine them the same way in the operator and in
// `db-autoscaler metrics`.
#include <string>

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

  std::vector<sdk::TargetKind> targets() const override {
    return {{.api_group = "db.example.com", .version = "v1", .kind = "AcmeDB", .plural = "acmedbs"}};
  }
  sdk::Topology topology(const sdk::ObjectView& target) const override {
    sdk::Topology t;
    t.current_replicas = sdk::values::read_replicas(target.json(), "spec.replicas");
    t.release_name = "acmedb-" + std::string(target.name());
    t.health = sdk::HealthSource::workload_monitor(t.release_name);
    return t;
  }
  sdk::Queries queries(const sdk::QueryRequest&) const override {
    sdk::Queries q;
    q.driver["ReadConnections"] = R"(acmedb_client_connections{namespace="${namespace}", cluster="${name}"})";
    return q;
  }
};

}  // namespace

DHA_EXPORT_PLUGINS(PerPodAdapter)
