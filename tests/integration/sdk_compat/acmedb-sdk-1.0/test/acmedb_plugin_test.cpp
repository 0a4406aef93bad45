// The built acmedb.so as the operator loads it: the kit's PluginUnderTest uses the operator's own
// loader and configuration checks, and a FakeHost captures what the plugin logs.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "dha/testing/fake_host.hpp"
#include "dha/testing/plugin_under_test.hpp"

namespace {

using dha::testing::FakeHost;
using dha::testing::PluginUnderTest;

// The message of the exception `load` throws, or "" when it loads.
std::string load_error(const std::string& config) {
  FakeHost host;
  try {
    PluginUnderTest::load(ACMEDB_PLUGIN_FILE, host, config);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(AcmeDbPlugin, LogsThroughTheHostAttributedToItsId) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(ACMEDB_PLUGIN_FILE, host, R"({"minQuorum": 2})");
  ASSERT_EQ(host.logs().size(), 1u);
  EXPECT_EQ(host.logs()[0].plugin_id, "acmedb");
  EXPECT_EQ(host.logs()[0].level, DHA_LOG_INFO);
  EXPECT_EQ(host.logs()[0].message, "AcmeDB adapter ready, minQuorum 2");

  const auto t = plugin.topology(R"({"metadata": {"name": "orders"}, "spec": {"replicas": 3, "sharded": true}})");
  EXPECT_FALSE(t.scalable);
  EXPECT_TRUE(host.logged("orders is sharded", DHA_LOG_WARNING));
  EXPECT_FALSE(host.logged("orders is sharded", DHA_LOG_ERROR));
}

TEST(AcmeDbPlugin, TheHostFillsTheDefaultConfiguration) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(ACMEDB_PLUGIN_FILE, host, "{}");
  EXPECT_TRUE(host.logged("minQuorum 1"));
  EXPECT_EQ(plugin.id(), "acmedb");
  ASSERT_EQ(plugin.targets().size(), 1u);
  EXPECT_EQ(plugin.targets()[0].kind, "AcmeDB");
}

// Table-driven: every configuration the operator must refuse at start-up, with its reason.
TEST(AcmeDbPlugin, RefusesBadConfigurationsWithAClearMessage) {
  struct Case {
    const char* config;
    const char* message;
  };
  const Case cases[] = {
      {R"({"minQuorum": 0})", "minQuorum must be at least 1"},  // the adapter's own check
      {R"({"minQuorum": "two"})", "minQuorum"},                 // the host's type check
      {R"({"minQuorom": 2})", "minQuorom"},                     // a typo is an unknown key
      {R"({"minQuorum": )", "acmedb"},                          // not JSON
  };
  for (const auto& c : cases) {
    const std::string error = load_error(c.config);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.config << " -> \"" << error << "\"";
  }
  EXPECT_EQ(load_error(R"({"minQuorum": 3})"), "");
}

TEST(AcmeDbPlugin, ReadsReplicasAndRefusesObjectsWithoutAName) {
  FakeHost host;
  auto plugin = PluginUnderTest::load(ACMEDB_PLUGIN_FILE, host);
  EXPECT_EQ(plugin.topology(R"({"metadata": {"name": "orders"}, "spec": {"replicas": 5}})").current_replicas, 5);
  try {
    plugin.topology(R"({"metadata": {}, "spec": {"replicas": 5}})");
    FAIL() << "topology of an object without a name must fail";
  } catch (const dha::sdk::Error& e) {
    EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("no metadata.name"), std::string::npos) << e.what();
  }
}

TEST(AcmeDbPlugin, AMissingFileIsAnErrorNamingIt) {
  FakeHost host;
  try {
    PluginUnderTest::load("/nonexistent/acmedb.so", host);
    FAIL() << "loading a missing file must fail";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/acmedb.so"), std::string::npos) << e.what();
  }
}

TEST(FakeHostClock, MovesOnlyWhenAdvanced) {
  FakeHost host(1'000'000);
  EXPECT_EQ(host.clock().now(), 1'000'000);
  host.clock().advance(std::chrono::seconds(60));
  EXPECT_EQ(host.clock().now(), 1'000'060);
  EXPECT_THROW(host.clock().advance(std::chrono::seconds(-1)), std::invalid_argument);
}

}  // namespace
