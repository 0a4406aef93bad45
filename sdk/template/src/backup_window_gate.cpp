#include "backup_window_gate.hpp"

#include <cstdio>
#include <string>

namespace acme {
namespace {

constexpr std::int64_t kDay = 86400;

// "HH:MM" -> seconds after midnight; -1 for anything else (the host checked only that it is a
// string).
std::int64_t time_of_day(const std::string& text) {
  if (text.size() != 5 || text[2] != ':') return -1;
  for (const int i : {0, 1, 3, 4})
    if (text[i] < '0' || text[i] > '9') return -1;
  const int hours = (text[0] - '0') * 10 + (text[1] - '0');
  const int minutes = (text[3] - '0') * 10 + (text[4] - '0');
  if (hours > 23 || minutes > 59) return -1;
  return hours * 3600 + minutes * 60;
}

std::string clock_text(std::int64_t seconds_of_day) {
  char out[8];
  std::snprintf(out, sizeof out, "%02d:%02d", static_cast<int>(seconds_of_day / 3600),
                static_cast<int>(seconds_of_day % 3600 / 60));
  return out;
}

}  // namespace

BackupWindowGate::BackupWindowGate(const dha::sdk::Host& host, const dha::sdk::json::Value& config) {
  // The host already checked the types and filled the defaults; the values are ours to judge.
  const std::string opens_at = config["opensAt"].GetString();
  const std::int64_t minutes = config["minutes"].GetInt64();
  const std::string holds = config["holds"].GetString();
  opens_at_ = time_of_day(opens_at);
  if (opens_at_ < 0)
    throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "opensAt \"" + opens_at + "\" is not a time of day HH:MM (UTC)");
  if (minutes < 1 || minutes >= kDay / 60)
    throw dha::sdk::Error(DHA_INVALID_ARGUMENT,
                          "minutes " + std::to_string(minutes) + " is out of range: a window lasts 1 to 1439 minutes");
  if (holds != "scaleDown" && holds != "all")
    throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "holds \"" + holds + "\" must be \"scaleDown\" or \"all\"");
  length_ = minutes * 60;
  holds_every_change_ = holds == "all";
  host.info("backup window " + window_text() + ", holding " + (holds_every_change_ ? "every change" : "scale-downs"));
}

std::int64_t BackupWindowGate::open_for(std::int64_t now) const {
  const std::int64_t since_open = ((now - opens_at_) % kDay + kDay) % kDay;  // now may be any integer
  return since_open < length_ ? since_open : -1;
}

std::string BackupWindowGate::window_text() const {
  return clock_text(opens_at_) + "-" + clock_text((opens_at_ + length_) % kDay) + " UTC";
}

dha::sdk::Verdict BackupWindowGate::evaluate(const dha::sdk::GateRequest& request) const {
  const auto& p = request.proposal;
  const bool held = holds_every_change_ ? p.replicas != p.current_replicas : p.replicas < p.current_replicas;
  const std::int64_t open = open_for(request.now);
  if (!held || open < 0) return dha::sdk::Verdict::pass();
  const std::int64_t closes_in = (length_ - open + 59) / 60;
  // A clamp to currentReplicas: the change waits, and the tenant's condition says until when.
  return dha::sdk::Verdict::clamp(p.current_replicas, "BackupWindow",
                                  "backup window " + window_text() + " is open (closes in " +
                                      std::to_string(closes_in) + "m); holding " + std::to_string(p.current_replicas) +
                                      " -> " + std::to_string(p.replicas) + " at " +
                                      std::to_string(p.current_replicas));
}

}  // namespace acme
