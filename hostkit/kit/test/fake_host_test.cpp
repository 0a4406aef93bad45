// The kit's own checks, in-tree and fast (the template's tests cover the installed kit end to
// end): FakeHost captures what a plugin logs, per instance and across threads; the manual clock
// only moves forward; PluginUnderTest refuses what the operator refuses.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dha/sdk/host.hpp"
#include "dha/testing/fake_host.hpp"
#include "dha/testing/plugin_under_test.hpp"

namespace {

using dha::testing::FakeHost;

TEST(FakeHost, AttributesEachLineToTheInstanceThatLoggedIt) {
  FakeHost host;
  const dha::sdk::Host a(host.host_for("alpha"));
  const dha::sdk::Host b(host.host_for("beta"));
  a.warning("lag unknown");
  b.error("bad object");
  a.debug("");
  const auto logs = host.logs();
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs[0].plugin_id, "alpha");
  EXPECT_EQ(logs[0].level, DHA_LOG_WARNING);
  EXPECT_EQ(logs[1].plugin_id, "beta");
  EXPECT_EQ(logs[1].message, "bad object");
  EXPECT_EQ(logs[2].message, "");
  EXPECT_TRUE(host.logged("lag", DHA_LOG_WARNING));
  EXPECT_FALSE(host.logged("lag", DHA_LOG_ERROR));
  host.clear_logs();
  EXPECT_TRUE(host.logs().empty());
}

TEST(FakeHost, KeepsEveryLineFromConcurrentCallers) {
  FakeHost host;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&host, t] {
      const dha::sdk::Host h(host.host_for("p" + std::to_string(t)));
      for (int i = 0; i < 250; ++i) h.info("line " + std::to_string(i));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(host.logs().size(), 1000u);
}

TEST(ManualClock, MovesOnlyForwardAndOnlyWhenTold) {
  struct Step {
    std::int64_t seconds;
    std::int64_t expected;  // -1: refused
  };
  const Step steps[] = {{0, 100}, {60, 160}, {-1, -1}, {3600, 3760}};
  dha::testing::ManualClock clock(100);
  for (const auto& s : steps) {
    if (s.expected < 0) {
      EXPECT_THROW(clock.advance(std::chrono::seconds(s.seconds)), std::invalid_argument);
      continue;
    }
    clock.advance(std::chrono::seconds(s.seconds));
    EXPECT_EQ(clock.now(), s.expected) << "after +" << s.seconds;
  }
}

TEST(PluginUnderTest, LoadsARealPluginAndRefusesAnUnknownConfigurationKey) {
  FakeHost host;
  auto postgres = dha::testing::PluginUnderTest::load(DHA_POSTGRES_PLUGIN, host);
  EXPECT_EQ(postgres.id(), "postgres");
  EXPECT_FALSE(postgres.targets().empty());
  try {
    dha::testing::PluginUnderTest::load(DHA_POSTGRES_PLUGIN, host, R"({"noSuchKey": 1})");
    FAIL() << "an unknown configuration key must be refused, as the operator refuses it";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("noSuchKey"), std::string::npos) << e.what();
  }
}

}  // namespace
