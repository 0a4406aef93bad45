#pragma once

#include "dha/sdk/cozystack_application.hpp"
#include "dha/sdk/sdk.hpp"

namespace dha::plugins {

// Engine adapter for cozystack MariaDB (mariadb-operator, asynchronous replication); its queries
// are in plugins/README.md. Reported not scalable with the reference reason: the cozystack chart
// does not set replication.replica.bootstrapFrom, so the operator rejects a scale-out. The queries are
// complete, so `db-autoscaler metrics` shows the load, and the configuration switch
// `allowScaling` (off by default) turns scaling on once the platform supports it.
class MariadbAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "mariadb",
      .name = "MariaDB (mariadb-operator) engine adapter",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description = "Reads mariadb-operator topology and read load for cozystack MariaDB Applications",
      .config_schema = R"json({"keys": [
        {"name": "allowScaling", "type": "boolean", "default": false, "required": false,
         "description": "Report MariaDB targets as scalable; only once replicas can bootstrap on scale-out"},
        {"name": "defaultResourcesPreset", "type": "string", "default": "t1.nano", "required": false,
         "description": "Preset assumed for quota checks when the Application sets neither resources nor resourcesPreset (the chart's default)"}
      ]})json"};

  static constexpr const char* kNotScalableReason =
      "the cozystack mariadb chart does not support on-the-fly scale-out (replication.replica.bootstrapFrom unset)";

  MariadbAdapter(const sdk::Host& host, const sdk::json::Value& config);

  std::vector<sdk::TargetKind> targets() const override;
  sdk::Topology topology(const sdk::ObjectView& target) const override;
  sdk::Queries queries(const sdk::QueryRequest& request) const override;

 private:
  bool allow_scaling_;
  std::string default_preset_;
};

}  // namespace dha::plugins
