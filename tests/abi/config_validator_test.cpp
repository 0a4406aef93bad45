#include <gtest/gtest.h>

#include <ostream>

#include "plugin_host/config_validator.hpp"
#include "plugin_host/load_error.hpp"

namespace dha::plugin_host {
namespace {

constexpr const char* kSchema = R"({"keys":[
  {"name":"url","type":"string"},
  {"name":"timeoutSeconds","type":"number","default":10},
  {"name":"retries","type":"integer","default":3},
  {"name":"verbose","type":"boolean","default":false},
  {"name":"token","type":"string","required":true}]})";

std::string error_of(const std::string& schema, const std::string& config) {
  try {
    validate_plugin_config("demo", schema, config);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

// Found by tests/fuzz/plugin_config: a default that does not match its declared type (or a type
// the validator does not know) was filled in unchecked and handed to the plugin.
TEST(ConfigValidator, RefusesADefaultOfTheWrongType) {
  EXPECT_EQ(error_of(R"({"keys":[{"name":"timeoutSeconds","type":"number","default":"10"}]})", "{}"),
            "plugin \"demo\": configuration schema declared by the plugin gives key \"timeoutSeconds\" a default of "
            "type string, not number");
  EXPECT_NE(error_of(R"({"keys":[{"name":"t","type":"numier","default":10}]})", "{}"), "");
  EXPECT_EQ(error_of(R"({"keys":[{"name":"t","type":"number","default":10}]})", "{}"), "");
}

// Found by tests/fuzz/plugin_config: the configuration was parsed up to its first NUL, so
// "{}\0junk" was accepted as {}.
TEST(ConfigValidator, RefusesTextAfterANul) {
  EXPECT_NE(error_of(kSchema, std::string(R"({"token":"t"})") + '\0' + "junk"), "");
}

TEST(ConfigValidator, FillsDefaultsAndKeepsGivenValues) {
  const std::string out = validate_plugin_config("demo", kSchema, R"({"token":"t","timeoutSeconds":2.5})");
  EXPECT_EQ(out, R"({"token":"t","timeoutSeconds":2.5,"retries":3,"verbose":false})");
}

struct BadConfig {
  const char* name;
  const char* config;
  const char* expected;
  friend std::ostream& operator<<(std::ostream& os, const BadConfig& c) { return os << c.name; }
};

class ConfigValidatorRefuses : public ::testing::TestWithParam<BadConfig> {};

TEST_P(ConfigValidatorRefuses, WithAMessageNamingTheKey) {
  EXPECT_EQ(error_of(kSchema, GetParam().config), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConfigValidatorRefuses,
    ::testing::Values(
        BadConfig{
            "unknown_key", R"({"token":"t","timeout":1})",
            R"(plugin "demo": configuration key "timeout" is unknown (known keys: retries, timeoutSeconds, token, url, verbose))"},
        BadConfig{"wrong_type", R"({"token":"t","timeoutSeconds":"10"})",
                  R"(plugin "demo": configuration key "timeoutSeconds" must be of type number, got string)"},
        BadConfig{"float_for_integer", R"({"token":"t","retries":1.5})",
                  R"(plugin "demo": configuration key "retries" must be of type integer, got number)"},
        BadConfig{"missing_required", R"({})", R"(plugin "demo": configuration key "token" is required)"},
        BadConfig{"not_an_object", R"([1,2])", R"(plugin "demo": configuration is not a JSON object)"},
        BadConfig{"malformed", R"({"token":)", R"(plugin "demo": configuration is not a JSON object)"}),
    [](const auto& info) { return std::string(info.param.name); });

// A key is its whole JSON string: "url\u0000x" is not "url" and must not pass as it.
TEST(ConfigValidator, AKeyWithANulIsNotTheKeyBeforeIt) {
  EXPECT_EQ(
      error_of(kSchema, R"({"token":"t","url\u0000x":"http://vm"})"),
      R"(plugin "demo": configuration key "url\u0000x" is unknown (known keys: retries, timeoutSeconds, token, url, verbose))");
}

TEST(ConfigValidator, APluginWithoutSchemaAcceptsOnlyAnEmptyConfiguration) {
  EXPECT_EQ(validate_plugin_config("bare", "", ""), "{}");
  EXPECT_EQ(error_of("", R"({"x":1})"), R"(plugin "demo": configuration key "x" is unknown (known keys: none))");
}

}  // namespace
}  // namespace dha::plugin_host
