#pragma once

#include <cstdint>
#include <string>

#include "dha/sdk/sdk.hpp"

namespace acme {

// A gate plugin: no scale-down (or, with "holds": "all", no change at all) while AcmeDB's daily
// backup runs, because removing a replica under a running backup can fail it. The window is a
// time of day in UTC and a length; it may run past midnight. Outside the window, and for a
// proposal that changes nothing, the gate passes.
class BackupWindowGate final : public dha::sdk::Gate {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "acmedb-backup-window",
      .name = "AcmeDB backup window",
      .version = "0.1.0",
      .vendor = "Acme Corp.",
      .description = "Holds scale-downs (or every change) while the daily backup window is open",
      .config_schema = R"({"keys": [
        {"name": "opensAt", "type": "string", "default": "01:00",
         "description": "When the daily backup window opens, HH:MM in UTC"},
        {"name": "minutes", "type": "integer", "default": 60,
         "description": "How long the window stays open, 1 to 1439 minutes"},
        {"name": "holds", "type": "string", "default": "scaleDown",
         "description": "What the open window holds: scaleDown, or all for every change"}]})"};

  BackupWindowGate(const dha::sdk::Host& host, const dha::sdk::json::Value& config);

  dha::sdk::Verdict evaluate(const dha::sdk::GateRequest& request) const override;

 private:
  // Seconds the window has been open at `now`, or -1 when it is closed.
  std::int64_t open_for(std::int64_t now) const;
  std::string window_text() const;  // "01:00-02:00 UTC"

  std::int64_t opens_at_;  // seconds after midnight UTC
  std::int64_t length_;    // seconds
  bool holds_every_change_;
};

}  // namespace acme
