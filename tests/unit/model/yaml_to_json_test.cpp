#include <gtest/gtest.h>

#include "dha/model/input_error.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/yaml_to_json.hpp"

namespace dha::model {
namespace {

TEST(YamlToJson, TypesPlainScalarsAndKeepsQuotedStrings) {
  const auto doc = yaml_to_json(R"(
a: 150
b: "150"
c: 1.5
d: true
e: ~
f: null
g: hello
h: [1, "x"]
i: {j: false}
k: '007'
)",
                                "t.yaml");
  EXPECT_TRUE(doc["a"].IsInt64());
  EXPECT_TRUE(doc["b"].IsString());
  EXPECT_DOUBLE_EQ(doc["c"].GetDouble(), 1.5);
  EXPECT_TRUE(doc["d"].GetBool());
  EXPECT_TRUE(doc["e"].IsNull());
  EXPECT_TRUE(doc["f"].IsNull());
  EXPECT_STREQ(doc["g"].GetString(), "hello");
  EXPECT_EQ(doc["h"][0].GetInt(), 1);
  EXPECT_FALSE(doc["i"]["j"].GetBool());
  EXPECT_STREQ(doc["k"].GetString(), "007");
}

TEST(YamlToJson, ADhaManifestParsesAsASpec) {
  const auto doc = yaml_to_json(R"(apiVersion: autoscaling.cozystack.io/v1alpha1
kind: DatabaseHorizontalAutoscaler
metadata: {name: db}
spec:
  targetRef: {kind: Postgres, name: db}
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: ReadCPUUtilization
    target: {averageValue: 250m}
)",
                                "dha.yaml");
  const DhaSpec spec = parse_spec(doc["spec"]);
  EXPECT_EQ(spec.metrics[0].target.milli, 250);
}

TEST(YamlToJson, SyntaxErrorNamesTheSource) {
  try {
    yaml_to_json("a: [1, 2", "bad.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("bad.yaml: not valid YAML", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace dha::model
