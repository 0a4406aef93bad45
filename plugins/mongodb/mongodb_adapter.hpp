#pragma once

#include "dha/sdk/cozystack_application.hpp"
#include "dha/sdk/sdk.hpp"

namespace dha::plugins {

// Engine adapter for cozystack MongoDB (Percona Server for MongoDB); its queries are in
// plugins/README.md. Reported not scalable with the reference reasons: sharded clusters need rebalancing to grow, and
// the exporter is disabled with queries not calibrated. `allowScaling` (off by default) lifts the second reason only; a
// sharded cluster stays not scalable whatever the configuration.
class MongodbAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "mongodb",
      .name = "MongoDB (Percona Server for MongoDB) engine adapter",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description = "Reads Percona Server for MongoDB topology and read load for cozystack MongoDB Applications",
      .config_schema = R"json({"keys": [
        {"name": "allowScaling", "type": "boolean", "default": false, "required": false,
         "description": "Report replica-set (unsharded) MongoDB targets as scalable; only once the exporter is enabled and the queries calibrated"},
        {"name": "defaultResourcesPreset", "type": "string", "default": "t1.small", "required": false,
         "description": "Preset assumed for quota checks when the Application sets neither resources nor resourcesPreset (the chart's default)"}
      ]})json"};

  static constexpr const char* kShardedReason =
      "sharded MongoDB is not horizontally scalable (shard addition requires data rebalancing)";
  static constexpr const char* kNotEnabledReason =
      "MongoDB autoscaling needs the (currently disabled) exporter and calibrated queries; not yet enabled";

  MongodbAdapter(const sdk::Host& host, const sdk::json::Value& config);

  std::vector<sdk::TargetKind> targets() const override;
  sdk::Topology topology(const sdk::ObjectView& target) const override;
  sdk::Queries queries(const sdk::QueryRequest& request) const override;

 private:
  bool allow_scaling_;
  std::string default_preset_;
};

}  // namespace dha::plugins
