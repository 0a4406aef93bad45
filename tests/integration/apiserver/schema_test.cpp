// CRD schema handling, table-driven over HTTP: defaulting, pruning, every supported
// validation keyword with kube's cause field/reason/message, CEL, and CRDs the kit must
// refuse at registration instead of half-validating.

#include "test_support.hpp"

namespace dha::testing::test {
namespace {

constexpr const char* kWidgetCrd = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.example.dha.io"},
  "spec": {"group": "example.dha.io", "scope": "Namespaced",
    "names": {"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "required": ["size"],
          "x-kubernetes-validations": [{"rule": "self.max >= self.min", "message": "max must be >= min"}],
          "properties": {
            "size": {"type": "integer", "minimum": 1, "maximum": 10},
            "min": {"type": "integer", "default": 1},
            "max": {"type": "integer", "default": 5},
            "ratio": {"type": "number", "exclusiveMinimum": true, "minimum": 0},
            "mode": {"type": "string", "enum": ["Fast", "Safe"], "default": "Safe"},
            "name": {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}},
            "target": {"x-kubernetes-int-or-string": true,
                       "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "enabled": {"type": "boolean", "default": true},
            "nested": {"type": "object", "properties": {"depth": {"type": "integer", "default": 3}}},
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
        "status": {"type": "object", "properties": {"ready": {"type": "boolean"}}}}}}}]}})";

const std::string kWidgets = "/apis/example.dha.io/v1/namespaces/default/widgets";

std::string widget(const std::string& spec) {
  return R"({"apiVersion":"example.dha.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":)" + spec + "}";
}

class SchemaTest : public ApiServerTest {
 protected:
  void SetUp() override {
    ApiServerTest::SetUp();
    auto r = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", kWidgetCrd);
    ASSERT_EQ(r.status, 201) << r.body;
  }
};

struct InvalidCase {
  const char* name;
  std::string spec;
  const char* field;
  const char* reason;
  const char* message;  // the cause message, exactly
};

// Readable ctest/gtest names instead of a byte dump.
inline void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }

class SchemaValidationTest : public SchemaTest, public ::testing::WithParamInterface<InvalidCase> {};

TEST_P(SchemaValidationTest, RejectsWith422AndKubeCause) {
  const auto& c = GetParam();
  auto r = call("POST", kWidgets, widget(c.spec));
  ASSERT_EQ(r.status, 422) << r.body;
  auto doc = r.json();
  EXPECT_STREQ(doc["reason"].GetString(), "Invalid");
  EXPECT_STREQ(doc["details"]["kind"].GetString(), "Widget");
  EXPECT_STREQ(doc["details"]["group"].GetString(), "example.dha.io");
  EXPECT_STREQ(doc["details"]["name"].GetString(), "w");
  bool found = false;
  for (const auto& cause : doc["details"]["causes"].GetArray()) {
    if (std::string(cause["field"].GetString()) != c.field) continue;
    found = true;
    EXPECT_STREQ(cause["reason"].GetString(), c.reason) << r.body;
    EXPECT_STREQ(cause["message"].GetString(), c.message) << r.body;
  }
  EXPECT_TRUE(found) << "no cause for " << c.field << " in " << r.body;
  std::string message = doc["message"].GetString();
  EXPECT_EQ(message.rfind("Widget.example.dha.io \"w\" is invalid: ", 0), 0u) << message;
  EXPECT_NE(message.find(std::string(c.field) + ": " + c.message), std::string::npos) << message;
  EXPECT_EQ(call("GET", kWidgets + "/w").status, 404) << "nothing may be stored";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SchemaValidationTest,
    ::testing::Values(
        InvalidCase{"Required", R"({"min":1})", "spec.size", "FieldValueRequired", "Required value"},
        InvalidCase{"WrongType", R"({"size":"big"})", "spec.size", "FieldValueTypeInvalid",
                    "Invalid value: \"string\": spec.size in body must be of type integer: \"string\""},
        InvalidCase{"FractionForInteger", R"({"size":1.5})", "spec.size", "FieldValueTypeInvalid",
                    "Invalid value: \"number\": spec.size in body must be of type integer: \"number\""},
        InvalidCase{"BelowMinimum", R"({"size":0})", "spec.size", "FieldValueInvalid",
                    "Invalid value: 0: spec.size in body should be greater than or equal to 1"},
        InvalidCase{"AboveMaximum", R"({"size":11})", "spec.size", "FieldValueInvalid",
                    "Invalid value: 11: spec.size in body should be less than or equal to 10"},
        InvalidCase{"ExclusiveMinimum", R"({"size":1,"ratio":0})", "spec.ratio", "FieldValueInvalid",
                    "Invalid value: 0: spec.ratio in body should be greater than 0"},
        InvalidCase{"Enum", R"({"size":1,"mode":"Slow"})", "spec.mode", "FieldValueNotSupported",
                    "Unsupported value: \"Slow\": supported values: \"Fast\", \"Safe\""},
        InvalidCase{"MinLength", R"({"size":1,"name":"a"})", "spec.name", "FieldValueInvalid",
                    "Invalid value: \"a\": spec.name in body should be at least 2 chars long"},
        InvalidCase{"MaxLength", R"({"size":1,"name":"abcdef"})", "spec.name", "FieldValueTooLong",
                    "Too long: may not be more than 5 bytes"},
        InvalidCase{"Pattern", R"({"size":1,"name":"ab1"})", "spec.name", "FieldValueInvalid",
                    "Invalid value: \"ab1\": spec.name in body should match '^[a-z]+$'"},
        InvalidCase{"MinItems", R"({"size":1,"tags":[]})", "spec.tags", "FieldValueInvalid",
                    "Invalid value: 0: spec.tags in body should have at least 1 items"},
        InvalidCase{"MaxItems", R"({"size":1,"tags":["a","b","c"]})", "spec.tags", "FieldValueTooMany",
                    "Too many: 3: must have at most 2 items"},
        InvalidCase{"ItemType", R"({"size":1,"tags":["a",2]})", "spec.tags[1]", "FieldValueTypeInvalid",
                    "Invalid value: \"integer\": spec.tags[1] in body must be of type string: \"integer\""},
        InvalidCase{"IntOrString", R"({"size":1,"target":true})", "spec.target", "FieldValueTypeInvalid",
                    "Invalid value: \"boolean\": spec.target in body must be of type integer,string: \"boolean\""},
        InvalidCase{"MapValues", R"({"size":1,"labels":{"a":1}})", "spec.labels.a", "FieldValueTypeInvalid",
                    "Invalid value: \"integer\": spec.labels.a in body must be of type string: \"integer\""},
        InvalidCase{"NullNotNullable", R"({"size":null})", "spec.size", "FieldValueTypeInvalid",
                    "Invalid value: \"null\": spec.size in body must be of type integer: \"null\""},
        InvalidCase{"CelRule", R"({"size":1,"min":4,"max":3})", "spec", "FieldValueInvalid",
                    "Invalid value: \"object\": max must be >= min"},
        InvalidCase{"CelRuleAgainstDefault", R"({"size":1,"min":9})", "spec", "FieldValueInvalid",
                    "Invalid value: \"object\": max must be >= min"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(SchemaTest, DefaultsArePersistedAndUnknownFieldsPruned) {
  auto r = call("POST", kWidgets, widget(R"({"size":2,"target":"50%","nested":{},"bogus":1,"free":{"any":{"x":1}}})"));
  ASSERT_EQ(r.status, 201) << r.body;
  auto warning = r.headers["warning"];
  EXPECT_NE(warning.find("unknown field"), std::string::npos) << "kube warns about pruned fields";
  auto doc = call("GET", kWidgets + "/w").json();
  const auto& spec = doc["spec"];
  EXPECT_EQ(spec["min"].GetInt(), 1);
  EXPECT_EQ(spec["max"].GetInt(), 5);
  EXPECT_STREQ(spec["mode"].GetString(), "Safe");
  EXPECT_TRUE(spec["enabled"].GetBool());
  EXPECT_EQ(spec["nested"]["depth"].GetInt(), 3);
  EXPECT_STREQ(spec["target"].GetString(), "50%");
  EXPECT_FALSE(spec.HasMember("bogus"));
  EXPECT_EQ(spec["free"]["any"]["x"].GetInt(), 1) << "preserve-unknown-fields keeps everything below";
}

TEST_F(SchemaTest, StrictFieldValidationRejectsUnknownFields) {
  auto r = call("POST", kWidgets + "?fieldValidation=Strict", widget(R"({"size":2,"bogus":1,"other":2})"));
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("strict decoding error: unknown field \\\"spec.bogus\\\", unknown field \\\"spec.other\\\""),
            std::string::npos)
      << r.body;
}

TEST_F(SchemaTest, UpdatesAreValidatedToo) {
  ASSERT_EQ(call("POST", kWidgets, widget(R"({"size":2})")).status, 201);
  auto r = call("PATCH", kWidgets + "/w", R"({"spec":{"size":20}})", "application/merge-patch+json");
  EXPECT_EQ(r.status, 422) << r.body;
  auto scale_like = call("PATCH", kWidgets + "/w", R"({"spec":{"size":3}})", "application/merge-patch+json");
  EXPECT_EQ(scale_like.status, 200) << scale_like.body;
}

struct BadCrdCase {
  const char* name;
  std::string from;  // replaced in kWidgetCrd
  std::string to;
  const char* message_part;
};

// Readable ctest/gtest names instead of a byte dump.
inline void PrintTo(const BadCrdCase& c, std::ostream* os) { *os << c.name; }

class BadCrdTest : public ApiServerTest, public ::testing::WithParamInterface<BadCrdCase> {};

TEST_P(BadCrdTest, RegistrationIsRefusedWith422) {
  const auto& c = GetParam();
  std::string crd = kWidgetCrd;
  auto at = crd.find(c.from);
  ASSERT_NE(at, std::string::npos) << c.from;
  crd.replace(at, c.from.size(), c.to);
  auto r = call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_NE(r.body.find("\"reason\":\"Invalid\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("CustomResourceDefinition.apiextensions.k8s.io \\\""), std::string::npos) << r.body;
  EXPECT_NE(r.body.find(c.message_part), std::string::npos) << r.body;
  EXPECT_EQ(call("GET", "/apis/example.dha.io/v1").status, 404) << "a refused CRD serves nothing";
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadCrdTest,
    ::testing::Values(
        BadCrdCase{"UnsupportedCelFunction", "self.max >= self.min", "size(self.tags) > 0",
                   "rule not supported by the dha-apiserver test kit"},
        BadCrdCase{"TransitionRule", "self.max >= self.min", "self.max >= oldSelf.max",
                   "x-kubernetes-validations[0].rule"},
        BadCrdCase{"MessageExpression", R"("message": "max must be >= min")", R"("messageExpression": "'x'")",
                   "messageExpression is not supported"},
        BadCrdCase{"BadScope", R"("scope": "Namespaced")", R"("scope": "Galaxy")", "spec.scope: Unsupported value"},
        BadCrdCase{"NameNotPluralDotGroup", R"("name": "widgets.example.dha.io")",
                   R"("name": "gadgets.example.dha.io")",
                   "metadata.name: Invalid value: \\\"gadgets.example.dha.io\\\": must be spec.names.plural+"},
        BadCrdCase{"NoStorageVersion", R"("storage": true)", R"("storage": false)",
                   "must have exactly one version marked as storage version"},
        BadCrdCase{"BadPattern", R"("pattern": "^[a-z]+$")", R"("pattern": "([a-z")", "pattern"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dha::testing::test
