// AcmeDB with the tutorial's spec.mode, for the pipeline test: topology() reads the mode from the
// object (no primary among the read-serving instances in multi-primary), and the ReadConnections
// template is the configuration's `readConnections`, which the test takes from the tutorial.
#include <string>

#include "dha/sdk/sdk.hpp"

namespace acme {

class AcmeDbModesAdapter final : public dha::sdk::EngineAdapter {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "acmedb-modes",
      .name = "AcmeDB adapter with modes",
      .version = "0.1.0",
      .vendor = "db-autoscaler tests",
      .description = "AcmeDB in standby or multi-primary mode, its driver query given by the configuration",
      .config_schema = R"({"keys": [
        {"name": "readConnections", "type": "string", "required": true,
         "description": "The ReadConnections query template"}]})"};

  AcmeDbModesAdapter(const dha::sdk::Host&, const dha::sdk::json::Value& config)
      : read_connections_(config["readConnections"].GetString()) {}

  std::vector<dha::sdk::TargetKind> targets() const override {
    return {{.api_group = "db.example.com", .version = "v1", .kind = "AcmeDB", .plural = "acmedbs"}};
  }

  dha::sdk::Topology topology(const dha::sdk::ObjectView& target) const override {
    if (target.name().empty()) throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "target object has no metadata.name");
    const std::string mode(dha::sdk::values::read_string(target.spec(), "mode", "standby"));
    if (mode != "standby" && mode != "multi-primary")
      throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "spec.mode must be standby or multi-primary, got \"" + mode + "\"");
    dha::sdk::Topology t;
    t.primary_count = mode == "multi-primary" ? 0 : 1;
    t.quorum_floor = 1;
    t.current_replicas = dha::sdk::values::read_replicas(target.json(), "spec.replicas");
    t.replicas_path = "spec.replicas";
    t.release_name = "acmedb-" + std::string(target.name());
    t.health = dha::sdk::HealthSource::workload_monitor(t.release_name);
    return t;
  }

  dha::sdk::Queries queries(const dha::sdk::QueryRequest& request) const override {
    dha::sdk::Queries q;
    for (const auto& type : request.metric_types)
      if (type == "ReadConnections") q.driver[type] = read_connections_;
    return q;
  }

 private:
  std::string read_connections_;
};

}  // namespace acme

DHA_EXPORT_PLUGINS(acme::AcmeDbModesAdapter)
