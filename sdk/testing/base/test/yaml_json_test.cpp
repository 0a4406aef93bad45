#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <stdexcept>

#include "dha/testing/base/yaml_json.hpp"

namespace dha::testing::base {
namespace {

std::string json_of(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return buffer.GetString();
}

std::string value_of(const std::string& yaml_scalar) {
  const auto docs = yaml_documents("v: " + yaml_scalar);
  EXPECT_EQ(docs.size(), 1u);
  return json_of(docs.at(0)["v"]);
}

struct ScalarCase {
  std::string yaml;
  std::string json;
};

class PlainScalars : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(PlainScalars, AreTypedAsTheApiServerTypesThem) { EXPECT_EQ(value_of(GetParam().yaml), GetParam().json); }

INSTANTIATE_TEST_SUITE_P(
    Table, PlainScalars,
    ::testing::Values(ScalarCase{"3", "3"}, ScalarCase{"-12", "-12"}, ScalarCase{"+7", "7"}, ScalarCase{"1.5", "1.5"},
                      ScalarCase{".5", "0.5"}, ScalarCase{"1e3", "1000.0"}, ScalarCase{"true", "true"},
                      ScalarCase{"False", "false"}, ScalarCase{"~", "null"}, ScalarCase{"null", "null"},
                      ScalarCase{"\"3\"", "\"3\""}, ScalarCase{"'true'", "\"true\""}, ScalarCase{"!!str 5", "\"5\""},
                      ScalarCase{"0x1F", "\"0x1F\""}, ScalarCase{"1e", "\"1e\""}, ScalarCase{"+-5", "\"+-5\""},
                      ScalarCase{"250m", "\"250m\""}, ScalarCase{"yes", "\"yes\""},
                      // too large for 64 bits: a number, never an exception
                      ScalarCase{"99999999999999999999", "100000000000000000000.0"}));

TEST(YamlDocuments, KeepsMapsAndListsAndSkipsEmptyDocuments) {
  const auto docs = yaml_documents("---\n---\na:\n  - 1\n  - x\nb: {c: null}\n---\nkind: Second\n");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(json_of(docs[0]), R"({"a":[1,"x"],"b":{"c":null}})");
  EXPECT_EQ(json_of(docs[1]), R"({"kind":"Second"})");
}

TEST(YamlDocuments, ASyntaxErrorSaysSo) {
  try {
    yaml_documents("a: [1, 2\nb: }");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("invalid YAML"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace dha::testing::base
