#include "host/plugin_set.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace dha::op {
namespace {

TEST(SplitPluginNames, CommaListsAndRepeatedFlags) {
  EXPECT_EQ(split_plugin_names({"postgres,redis", " metrics-vm ", "", "a,,b"}),
            (std::vector<std::string>{"postgres", "redis", "metrics-vm", "a", "b"}));
  EXPECT_TRUE(split_plugin_names({}).empty());
}

std::string error_of(const PluginSetOptions& o) {
  try {
    PluginSet::load(o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(PluginSet, BuiltinsAloneLoadWithNoAdapter) {
  auto set = PluginSet::load({});
  EXPECT_EQ(set->engine_for("apps.cozystack.io", "Postgres"), nullptr);
  EXPECT_EQ(set->handled_kinds(), "none");
  EXPECT_EQ(set->metric_source(), nullptr);
  EXPECT_NE(set->actuator("builtin.merge-patch"), nullptr);
  EXPECT_NE(set->actuator("builtin.scale"), nullptr);
  EXPECT_EQ(set->actuator("builtin.status-writer"), nullptr);  // listed, but not an actuator
  EXPECT_EQ(set->listing().size(), 4u);
  EXPECT_EQ(set->chain().names(), gates::GateChain::builtin().names());
}

TEST(PluginSet, AMissingPluginFileIsNamed) {
  const auto msg = error_of({{"/nonexistent"}, {"postgres"}, ""});
  EXPECT_NE(msg.find("postgres"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/nonexistent"), std::string::npos) << msg;
}

TEST(PluginSet, ABadConfigIsNamedWithWhereItCameFrom) {
  const PluginSetOptions not_objects{{}, {}, "{\"builtin.merge-patch\": [1]}", "--plugin-config x.json"};
  EXPECT_NE(error_of(not_objects)
                .find("--plugin-config x.json: the configuration of \"builtin.merge-patch\" must be an object"),
            std::string::npos);
  EXPECT_NE(error_of({{}, {}, "{not json", "--plugin-config x.json"}).find("--plugin-config x.json: not JSON"),
            std::string::npos);
  // Configuration for a plugin that takes none is refused by the host's validator.
  EXPECT_NE(error_of({{}, {}, "{\"builtin.merge-patch\": {\"x\": 1}}"}).find("builtin.merge-patch"), std::string::npos);
}

TEST(PluginSet, TheConfigFileIsReadOrNamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("plugin-set-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = (dir / "config.json").string();
  std::ofstream(file) << "{\"builtin.merge-patch\": {}}";
  EXPECT_EQ(read_plugin_config_text(file), "{\"builtin.merge-patch\": {}}");
  EXPECT_EQ(read_plugin_config_text(""), "");
  try {
    read_plugin_config_text((dir / "missing.json").string());
    ADD_FAILURE() << "a missing file must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json: cannot read"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dha::op
