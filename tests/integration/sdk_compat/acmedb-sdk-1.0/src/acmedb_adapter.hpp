#pragma once

#include "dha/sdk/sdk.hpp"

namespace acme {

// Engine adapter for AcmeDB, a made-up engine with one primary and read replicas, deployed as
// `db.example.com/v1 AcmeDB` objects whose `spec.replicas` counts every instance.
class AcmeDbAdapter final : public dha::sdk::EngineAdapter {
 public:
  static constexpr dha::sdk::PluginInfo info{.id = "acmedb",
                                             .name = "AcmeDB engine adapter",
                                             .version = "0.1.0",
                                             .vendor = "Acme Corp.",
                                             .description = "Scales AcmeDB read replicas on client connections",
                                             .config_schema = R"({"keys": [
        {"name": "minQuorum", "type": "integer", "default": 1,
         "description": "Fewest instances AcmeDB needs to keep accepting writes"}]})"};

  AcmeDbAdapter(const dha::sdk::Host& host, const dha::sdk::json::Value& config);

  std::vector<dha::sdk::TargetKind> targets() const override;
  dha::sdk::Topology topology(const dha::sdk::ObjectView& target) const override;
  dha::sdk::Queries queries(const dha::sdk::QueryRequest& request) const override;

 private:
  dha::sdk::Host host_;  // valid for the instance's lifetime (ABI rule)
  int64_t min_quorum_;
};

}  // namespace acme
