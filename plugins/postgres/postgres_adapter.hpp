#pragma once

#include "dha/sdk/cozystack_application.hpp"
#include "dha/sdk/sdk.hpp"

namespace dha::plugins {

// Engine adapter for PostgreSQL run by CloudNativePG, reached two ways:
//   - apps.cozystack.io/v1alpha1 Postgres (the cozystack Application): count in spec.replicas,
//     health from the WorkloadMonitor postgres-<name>, actuated by merge patch;
//   - postgresql.cnpg.io/v1 Cluster directly: count in spec.instances, health from the
//     Cluster's own status, actuated through its /scale subresource.
class PostgresAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "postgres",
      .name = "PostgreSQL (CloudNativePG) engine adapter",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description =
          "Reads CloudNativePG topology and read load for cozystack Postgres Applications and "
          "postgresql.cnpg.io Clusters",
      .config_schema = R"json({"keys": [
        {"name": "defaultResourcesPreset", "type": "string", "default": "t1.micro", "required": false,
         "description": "Preset assumed for quota checks when the Application sets neither resources nor resourcesPreset"}
      ]})json"};

  PostgresAdapter(const sdk::Host& host, const sdk::json::Value& config);

  std::vector<sdk::TargetKind> targets() const override;
  sdk::Topology topology(const sdk::ObjectView& target) const override;
  sdk::Queries queries(const sdk::QueryRequest& request) const override;
  sdk::Health health(const sdk::HealthRequest& request) const override;

 private:
  std::string default_preset_;
};

}  // namespace dha::plugins
