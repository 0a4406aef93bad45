#pragma once

#include "dha/sdk/cozystack_application.hpp"
#include "dha/sdk/sdk.hpp"

namespace dha::plugins {

// Engine adapter for cozystack Redis (spotahome RedisFailover with Sentinel; queries in
// plugins/README.md): one master and replicas-1 read-serving slaves; the three Sentinels do not
// count. Health comes from the WorkloadMonitor the chart really renders, redis-<name>-redis (the
// reference looked for redis-<name> and failed open). No lag signal: Redis reports byte offsets
// only, which a seconds threshold cannot use, so the lag brake is off for Redis.
class RedisAdapter final : public sdk::EngineAdapter {
 public:
  static constexpr sdk::PluginInfo info{
      .id = "redis",
      .name = "Redis (spotahome RedisFailover) engine adapter",
      .version = "1.0.0",
      .vendor = "db-autoscaler",
      .description = "Reads RedisFailover topology and read load for cozystack Redis Applications",
      .config_schema = R"json({"keys": [
        {"name": "defaultResourcesPreset", "type": "string", "default": "t1.nano", "required": false,
         "description": "Preset assumed for quota checks when the Application sets neither resources nor resourcesPreset (the chart's default)"}
      ]})json"};

  RedisAdapter(const sdk::Host& host, const sdk::json::Value& config);

  std::vector<sdk::TargetKind> targets() const override;
  sdk::Topology topology(const sdk::ObjectView& target) const override;
  sdk::Queries queries(const sdk::QueryRequest& request) const override;

 private:
  std::string default_preset_;
};

}  // namespace dha::plugins
