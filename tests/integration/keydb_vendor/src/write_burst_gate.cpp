// The vendor's gate: no scale-down while writes are bursting (KeyDB replicates every write to
// every node; removing one under a burst makes the survivors fall behind). Built twice: the
// real gate (keydb-write-burst.so) and, with KEYDB_GATE_NEVER_HOLDS, a gate that passes
// everything (keydb-never-holds.so), which the checker must fail.
#include <cmath>
#include <string>

#include "dha/sdk/sdk.hpp"

namespace keydb {

#ifdef KEYDB_GATE_NEVER_HOLDS
constexpr const char* kGateId = "keydb-never-holds";
#else
constexpr const char* kGateId = "keydb-write-burst";
#endif

class WriteBurstGate final : public dha::sdk::Gate {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = kGateId,
      .name = "KeyDB write-burst gate",
      .version = "0.3.0",
      .vendor = "KeyDB Vendor Ltd.",
      .description = "Holds scale-downs while the primary takes more writes per second than configured",
      .config_schema = R"({"keys": [
        {"name": "maxWriteRate", "type": "number", "default": 1000,
         "description": "Writes per second above which a scale-down waits"}]})"};

  WriteBurstGate(const dha::sdk::Host&, const dha::sdk::json::Value& config)
      : max_(config["maxWriteRate"].GetDouble()) {
    if (!(max_ > 0) || !std::isfinite(max_))
      throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "maxWriteRate must be a positive number");
  }

  dha::sdk::Verdict evaluate(const dha::sdk::GateRequest& request) const override {
#ifdef KEYDB_GATE_NEVER_HOLDS
    (void)request;
    return dha::sdk::Verdict::pass();
#else
    if (request.proposal.replicas >= request.proposal.current_replicas) return dha::sdk::Verdict::pass();
    const auto* rate = request.observation ? dha::sdk::json::find(*request.observation, "writeRate") : nullptr;
    if (rate == nullptr || !rate->IsNumber() || rate->GetDouble() <= max_) return dha::sdk::Verdict::pass();
    return dha::sdk::Verdict::clamp(request.proposal.current_replicas, "WriteBurst",
                                    std::to_string(std::llround(rate->GetDouble())) +
                                        " writes/s on the primary, above " + std::to_string(std::llround(max_)) +
                                        ": scale-down waits");
#endif
  }

 private:
  double max_;
};

}  // namespace keydb

DHA_EXPORT_PLUGINS(keydb::WriteBurstGate)
