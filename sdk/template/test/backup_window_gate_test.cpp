// The built acmedb-backup-window.so through the kit's direct gate call: PluginUnderTest::evaluate
// sends the request over the C ABI as the operator does and reads the verdict with the
// operator's own rules. The window is a time of day, so `now` is chosen per row; the gate reads
// no clock of its own.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "dha/testing/fake_host.hpp"
#include "dha/testing/plugin_under_test.hpp"

namespace {

using dha::sdk::Verdict;
using dha::testing::FakeHost;
using dha::testing::PluginUnderTest;

constexpr std::int64_t kMidnight = 1'700'006'400;  // 2023-11-15 00:00:00 UTC
constexpr std::int64_t at(int hours, int minutes, int seconds = 0) {
  return kMidnight + hours * 3600 + minutes * 60 + seconds;
}

dha::sdk::GateRequest proposal(std::int64_t now, std::int64_t current, std::int64_t replicas) {
  dha::sdk::GateRequest r;
  r.now = now;
  r.dha = {"tenant-a", "orders"};
  r.proposal = {"Scale", current, replicas};
  return r;
}

struct Row {
  const char* what;
  const char* config;
  std::int64_t now;
  std::int64_t current;
  std::int64_t replicas;
  bool held;  // a clamp to `current`, reason BackupWindow; otherwise a pass
};

TEST(BackupWindowGate, HoldsWhatTheOpenWindowHoldsAndPassesTheRest) {
  const char* daily = R"({"opensAt": "01:00", "minutes": 60})";
  const char* overnight = R"({"opensAt": "23:30", "minutes": 60})";
  const char* all = R"({"opensAt": "01:00", "minutes": 60, "holds": "all"})";
  const Row rows[] = {
      {"inside, scale-down", daily, at(1, 30), 4, 3, true},
      {"inside, scale-up", daily, at(1, 30), 3, 4, false},
      {"inside, no change", daily, at(1, 30), 3, 3, false},
      {"the second it opens", daily, at(1, 0), 4, 3, true},
      {"the second before it opens", daily, at(0, 59, 59), 4, 3, false},
      {"the last second it is open", daily, at(1, 59, 59), 4, 3, true},
      {"the second it closes", daily, at(2, 0), 4, 3, false},
      {"outside", daily, at(13, 0), 4, 2, false},
      {"the next day", daily, at(24 + 1, 15), 4, 3, true},
      {"past midnight, before it", overnight, at(23, 45), 4, 3, true},
      {"past midnight, after it", overnight, at(24, 15), 4, 3, true},
      {"past midnight, closed", overnight, at(24, 30), 4, 3, false},
      {"holds all, scale-up", all, at(1, 30), 3, 4, true},
      {"holds all, outside", all, at(2, 30), 3, 4, false},
  };
  for (const auto& row : rows) {
    FakeHost host;
    auto gate = PluginUnderTest::load(BACKUP_WINDOW_PLUGIN_FILE, host, row.config);
    const Verdict v = gate.evaluate(proposal(row.now, row.current, row.replicas));
    if (!row.held) {
      EXPECT_EQ(v, Verdict::pass()) << row.what << ": " << v.message;
      continue;
    }
    EXPECT_EQ(v.kind, Verdict::Kind::kClamp) << row.what;
    EXPECT_EQ(v.replicas, row.current) << row.what;
    EXPECT_EQ(v.reason, "BackupWindow") << row.what;
  }
}

TEST(BackupWindowGate, ItsMessageSaysWhichWindowAndForHowLong) {
  FakeHost host;
  auto gate = PluginUnderTest::load(BACKUP_WINDOW_PLUGIN_FILE, host, R"({"opensAt": "23:30", "minutes": 60})");
  EXPECT_EQ(gate.evaluate(proposal(at(23, 45), 4, 3)).message,
            "backup window 23:30-00:30 UTC is open (closes in 45m); holding 4 -> 3 at 4");
  EXPECT_TRUE(host.logged("backup window 23:30-00:30 UTC, holding scale-downs", DHA_LOG_INFO));
}

TEST(BackupWindowGate, RefusesBadConfigurationsWithAClearMessage) {
  struct Bad {
    const char* config;
    const char* message;
  };
  const Bad cases[] = {
      {R"({"opensAt": "25:00"})", "opensAt \"25:00\" is not a time of day HH:MM (UTC)"},
      {R"({"opensAt": "1:00"})", "opensAt \"1:00\" is not a time of day HH:MM (UTC)"},
      {R"({"opensAt": 100})", "opensAt"},  // the host's type check
      {R"({"minutes": 0})", "minutes 0 is out of range: a window lasts 1 to 1439 minutes"},
      {R"({"minutes": 1440})", "minutes 1440 is out of range"},
      {R"({"holds": "scaleUp"})", "holds \"scaleUp\" must be \"scaleDown\" or \"all\""},
      {R"({"window": "01:00"})", "window"},  // a key the gate does not declare
  };
  for (const auto& c : cases) {
    FakeHost host;
    try {
      PluginUnderTest::load(BACKUP_WINDOW_PLUGIN_FILE, host, c.config);
      ADD_FAILURE() << c.config << " loaded";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << c.config << " -> " << e.what();
    }
  }
}

TEST(BackupWindowGate, IsAGateAndNothingElse) {
  FakeHost host;
  auto gate = PluginUnderTest::load(BACKUP_WINDOW_PLUGIN_FILE, host);
  EXPECT_EQ(gate.capabilities(), std::vector<std::string>{"dha.gate/1"});
  try {
    gate.targets();
    FAIL() << "a gate has no targets";
  } catch (const dha::sdk::Error& e) {
    EXPECT_EQ(e.status(), DHA_UNIMPLEMENTED) << e.what();
  }
}

}  // namespace
