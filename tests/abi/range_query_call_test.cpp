// The range query call across ABI minors: a 1.0 metric source still loads and answers instant
// queries, and its missing range_query is refused by the host, never called.
#include <gtest/gtest.h>

#include <string>

#include "plugin_host/plugin_registry.hpp"
#include "plugin_host/range_query_call.hpp"

namespace dha::plugin_host {
namespace {

TEST(RangeQueryCall, AMetricSourceBuiltForABI10LoadsAndRefusesRangesCleanly) {
  PluginRegistry registry;
  registry.load_file(std::string(DHA_ABI_FIXTURE_DIR) + "/metrics_abi_1_0.so");
  const PluginInfo* info = registry.find("fixture-metrics-1-0");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->abi_minor, 0u);
  const auto instance = registry.create("fixture-metrics-1-0");
  ASSERT_NE(instance->metrics(), nullptr) << "a 1.0-sized metrics table must still be offered";

  const CallResult instant = instance->call(instance->metrics()->instant_query, R"({"query":"up"})");
  EXPECT_TRUE(instant.ok()) << instant.error;

  const CallResult range =
      call_range_query(*instance, R"({"query":"up","namespace":"a","start":0,"end":60,"step":60})");
  EXPECT_EQ(range.status, DHA_UNIMPLEMENTED);
  EXPECT_NE(range.error.find("plugin ABI 1.0"), std::string::npos) << range.error;
  EXPECT_NE(range.error.find("has no range queries"), std::string::npos) << range.error;
}

TEST(RangeQueryCall, APluginThatIsNoMetricSourceIsRefused) {
  PluginRegistry registry;
  registry.load_file(std::string(DHA_ABI_FIXTURE_DIR) + "/good.so");
  const auto instance = registry.create("fixture-good");
  const CallResult range = call_range_query(*instance, "{}");
  EXPECT_EQ(range.status, DHA_UNIMPLEMENTED);
  EXPECT_NE(range.error.find("is not a metric source"), std::string::npos) << range.error;
}

}  // namespace
}  // namespace dha::plugin_host
