#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "plugin_host/calls_in_flight.hpp"
#include "plugin_host/load_error.hpp"
#include "plugin_host/plugin_registry.hpp"
#include "plugin_host/status_text.hpp"

namespace dha::plugin_host {
namespace {

std::string fixture(const std::string& name) { return std::string(DHA_ABI_FIXTURE_DIR) + "/" + name + ".so"; }

// Loads `file` into a fresh registry and returns the refusal text ("" if it loaded).
std::string refusal(const std::string& file) {
  PluginRegistry registry;
  try {
    registry.load_file(file);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

// The host's minor, which the fixtures are built with too (the wrong-major one keeps it).
const std::string kMinor = std::to_string(DHA_ABI_VERSION_MINOR);

struct RefusalCase {
  std::string fixture;
  std::vector<std::string> expected_fragments;
  friend std::ostream& operator<<(std::ostream& os, const RefusalCase& c) { return os << c.fixture; }
};

class FixtureRefusal : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(FixtureRefusal, IsRefusedWithASpecificMessage) {
  const RefusalCase& c = GetParam();
  const std::string file = fixture(c.fixture);
  const std::string message = refusal(file);
  ASSERT_FALSE(message.empty()) << c.fixture << " was accepted";
  EXPECT_NE(message.find(file), std::string::npos) << "message does not name the file: " << message;
  EXPECT_NE(message.find("host ABI 1." + kMinor), std::string::npos)
      << "message does not name the host ABI: " << message;
  for (const auto& fragment : c.expected_fragments) {
    EXPECT_NE(message.find(fragment), std::string::npos) << "missing \"" << fragment << "\" in: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EachFailureMode, FixtureRefusal,
    ::testing::Values(RefusalCase{"no_entry", {"missing entry symbol dha_plugin_entry_v1", "plugin ABI unknown"}},
                      RefusalCase{"wrong_major_symbol",
                                  {"exports dha_plugin_entry_v2 instead of dha_plugin_entry_v1", "plugin ABI 2.x"}},
                      RefusalCase{"wrong_major_field", {"ABI major version differs", "plugin ABI 2." + kMinor}},
                      RefusalCase{"newer_minor", {"newer ABI minor", "plugin ABI 1.99"}},
                      RefusalCase{"null_entry", {"dha_plugin_entry_v1 returned NULL"}},
                      RefusalCase{"bad_struct_size", {"entry struct_size is 8 bytes, smaller than the 40 bytes"}},
                      RefusalCase{
                          "duplicate_id",
                          {"duplicate plugin id \"fixture-good\" within the library", "plugin ABI 1." + kMinor}},
                      RefusalCase{"invalid_id", {"invalid id \"Not A Valid Id\""}},
                      RefusalCase{"throws_in_entry",
                                  {"dha_plugin_entry_v1 threw an exception", "fixture exploded in its entry point"}},
                      RefusalCase{"not_a_library", {"cannot be loaded"}},
                      RefusalCase{"does_not_exist", {"no such file"}}),
    [](const auto& info) { return info.param.fixture; });

TEST(PluginRegistry, LoadsAValidCPluginWithTwoPlugins) {
  PluginRegistry registry;
  registry.load_file(fixture("good"));
  ASSERT_EQ(registry.plugins().size(), 2u);
  const PluginInfo* info = registry.find("fixture-good");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->version, "1.0.0");
  EXPECT_EQ(info->abi_major, 1u);
  EXPECT_TRUE(info->has_capability("dha.engine/1"));
  EXPECT_FALSE(info->has_capability("dha.metrics/1"));
  EXPECT_NE(registry.find("fixture-good-second"), nullptr);
}

TEST(PluginRegistry, RefusesTheSameIdFromASecondFileAndKeepsTheFirst) {
  PluginRegistry registry;
  registry.load_file(fixture("good"));
  try {
    registry.load_file(fixture("good_twin"));
    FAIL() << "duplicate id across files was accepted";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("duplicate plugin id \"fixture-good\""), std::string::npos) << message;
    EXPECT_NE(message.find("already provided by " + fixture("good")), std::string::npos) << message;
  }
  EXPECT_EQ(registry.plugins().size(), 2u);
}

TEST(PluginRegistry, CreatesAnInstanceAndCallsItsEngine) {
  PluginRegistry registry;
  registry.load_file(fixture("good"));
  auto instance = registry.create("fixture-good");
  ASSERT_NE(instance->engine(), nullptr);
  EXPECT_EQ(instance->metrics(), nullptr);
  CallResult targets = instance->call(instance->engine()->targets);
  ASSERT_TRUE(targets.ok()) << targets.error;
  EXPECT_NE(targets.output.find("\"kind\":\"Widget\""), std::string::npos);

  CallResult empty = instance->call(instance->engine()->topology, "");
  EXPECT_EQ(empty.status, DHA_INVALID_ARGUMENT);
  EXPECT_EQ(empty.error, "empty target object");
}

TEST(PluginRegistry, ReportsThePluginsOwnRejectionOfItsConfiguration) {
  PluginRegistry registry;
  registry.load_file(fixture("good"));
  try {
    registry.create("fixture-good", R"({"greeting":"reject"})");
    FAIL() << "rejected configuration was accepted";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("create failed with INVALID_ARGUMENT: greeting \"reject\" is not acceptable"),
              std::string::npos)
        << e.what();
  }
}

TEST(StatusText, NamesEveryAbiStatusAndKeepsTheNumberOfAnyOther) {
  EXPECT_EQ(status_text(DHA_INVALID_ARGUMENT), "INVALID_ARGUMENT");
  EXPECT_EQ(status_text(DHA_UNAUTHENTICATED), "UNAUTHENTICATED");
  for (dha_status s = DHA_OK; s <= DHA_UNAUTHENTICATED; ++s)
    EXPECT_EQ(status_text(s).find("status"), std::string::npos) << s;
  EXPECT_EQ(status_text(99), "status 99 (not a dha_status this host knows)");
}

TEST(PluginRegistry, TurnsAnExceptionFromCreateIntoAnError) {
  PluginRegistry registry;
  registry.load_file(fixture("throws_in_create"));
  try {
    registry.create("fixture-good");
    FAIL() << "throwing create was accepted";
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("create threw an exception: fixture exploded in create"), std::string::npos)
        << e.what();
  }
}

TEST(PluginRegistry, NamesUnknownPluginsAndMissingFiles) {
  PluginRegistry registry;
  EXPECT_THROW(registry.create("nope"), PluginError);
  // The error lists every directory searched and what it held, so the user sees where it looked.
  try {
    registry.load_named({"/nonexistent", DHA_ABI_FIXTURE_DIR}, {"absent"});
    FAIL();
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(
        message.find(
            "no file absent.so in the plugin directories searched: /nonexistent (does not exist), " DHA_ABI_FIXTURE_DIR
            " (holds bad_struct_size.so, duplicate_id.so, good.so, "),
        std::string::npos)
        << message;
  }
  try {
    registry.load_named({}, {"absent"});
    FAIL();
  } catch (const PluginError& e) {
    EXPECT_NE(std::string(e.what()).find("searched: no plugin directories"), std::string::npos) << e.what();
  }
  registry.load_named({"/nonexistent", DHA_ABI_FIXTURE_DIR}, {"good"});
  EXPECT_NE(registry.find("fixture-good"), nullptr);
}

}  // namespace
}  // namespace dha::plugin_host

namespace dha::plugin_host {
namespace {

// A call that never returns cannot be interrupted in-process; it is noticed (the operator's
// /healthz reports it) once it has run longer than the limit. Calls that return leave nothing.
TEST(CallsInFlight, AHungCallIsReportedOnceOverdue) {
  PluginRegistry registry;
  registry.load_file(fixture("topology_hangs"));
  std::shared_ptr<PluginInstance> instance = registry.create(registry.plugins().front().id);
  // The registry goes at the end of the test; the hung call keeps its instance and library.
  ASSERT_NE(instance->engine(), nullptr);
  EXPECT_EQ(CallsInFlight::instance().overdue(std::chrono::milliseconds(0)), "");
  (void)instance->call(instance->engine()->targets);
  EXPECT_EQ(CallsInFlight::instance().overdue(std::chrono::milliseconds(0)), "") << "a returned call stays counted";

  std::thread([instance] { (void)instance->call(instance->engine()->topology, "{}"); }).detach();  // never returns
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(CallsInFlight::instance().overdue(std::chrono::seconds(60)), "");
  const std::string overdue = CallsInFlight::instance().overdue(std::chrono::milliseconds(100));
  EXPECT_NE(overdue.find("plugin " + instance->info().id + " has not returned"), std::string::npos) << overdue;
}

}  // namespace
}  // namespace dha::plugin_host
