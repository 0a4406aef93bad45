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

// Found by tests/fuzz/dha_spec. Anchors of anchors expand exponentially ("billion laughs"):
// this one is 10^8 values and used to hang; it must be refused at once.
TEST(YamlToJson, RefusesAliasExpansionBombs) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 8; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  try {
    yaml_to_json(text, "bomb.yaml");
    FAIL() << "an alias bomb was expanded";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("too many values"), std::string::npos) << e.what();
  }
}

// Found by tests/fuzz/dha_spec: std::regex recursed once per character and overflowed the stack
// on a 60 000-digit plain scalar. Typing must still follow YAML 1.2 core.
TEST(YamlToJson, LongScalarsAreTypedWithoutRecursion) {
  const auto doc =
      yaml_to_json("a: " + std::string(200000, '7') + "\nb: 1.5e3\nc: .5\nd: 1.\ne: 1e\nf: +-1\n", "long.yaml");
  EXPECT_TRUE(doc["a"].IsNumber());
  EXPECT_DOUBLE_EQ(doc["b"].GetDouble(), 1500);
  EXPECT_DOUBLE_EQ(doc["c"].GetDouble(), 0.5);
  EXPECT_DOUBLE_EQ(doc["d"].GetDouble(), 1);
  EXPECT_TRUE(doc["e"].IsString());
  EXPECT_TRUE(doc["f"].IsString());
}

// Keys are kept whole: a NUL inside a quoted key does not make it another key.
TEST(YamlToJson, KeysWithNulStayDistinct) {
  const auto doc = yaml_to_json("\"a\\0b\": 1\na: 2\n", "nul.yaml");
  ASSERT_EQ(doc.MemberCount(), 2u);
  EXPECT_EQ(doc.MemberBegin()->name.GetStringLength(), 3u);
}

}  // namespace
}  // namespace dha::model
