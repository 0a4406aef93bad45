// Bad requests get the Kubernetes Status a real kube-apiserver returns, never a crash:
// one table row per failure mode, asserted on HTTP code, Status reason and message.

#include "test_support.hpp"

namespace dha::testing::test {
namespace {

struct BadRequestCase {
  const char* name;
  const char* method;
  const char* path;
  std::string body;
  const char* content_type;
  long code;
  const char* reason;
  const char* message_part;
};

// Readable ctest/gtest names instead of a byte dump.
inline void PrintTo(const BadRequestCase& c, std::ostream* os) { *os << c.name; }

class HttpErrorsTest : public ApiServerTest, public ::testing::WithParamInterface<BadRequestCase> {};

const char* kPg =
    R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":"db"},"spec":{"replicas":2}})";

TEST_P(HttpErrorsTest, ReturnsKubernetesStatus) {
  const auto& c = GetParam();
  // Every case runs against a namespace holding one Postgres "db".
  ASSERT_EQ(call("POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses", kPg).status, 201);
  auto r = call(c.method, c.path, c.body, c.content_type);
  EXPECT_EQ(r.status, c.code) << r.body;
  auto doc = r.json();
  ASSERT_TRUE(doc.IsObject()) << r.body;
  EXPECT_STREQ(doc["kind"].GetString(), "Status");
  EXPECT_STREQ(doc["apiVersion"].GetString(), "v1");
  EXPECT_STREQ(doc["status"].GetString(), "Failure");
  EXPECT_EQ(doc["code"].GetInt(), c.code);
  EXPECT_STREQ(doc["reason"].GetString(), c.reason) << r.body;
  EXPECT_NE(std::string(doc["message"].GetString()).find(c.message_part), std::string::npos) << r.body;
  EXPECT_EQ(r.headers["content-type"], "application/json");
  // The server is still healthy afterwards.
  EXPECT_EQ(call("GET", "/version").status, 200);
}

const std::string kPgPath = "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses";

INSTANTIATE_TEST_SUITE_P(
    Cases, HttpErrorsTest,
    ::testing::Values(
        BadRequestCase{"MalformedJson", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
                       "{\"apiVersion\": ", "application/json", 400, "BadRequest", "json parse error"},
        BadRequestCase{"UnknownResource", "GET", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/widgets", "", "",
                       404, "NotFound", "the server could not find the requested resource"},
        BadRequestCase{"UnknownGroup", "GET", "/apis/nope.example.com/v1/things", "", "", 404, "NotFound",
                       "the server could not find the requested resource"},
        BadRequestCase{"MissingObject", "GET", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/nope",
                       "", "", 404, "NotFound", "postgreses.apps.cozystack.io \"nope\" not found"},
        BadRequestCase{"WrongContentTypeOnCreate", "POST",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses", kPg, "text/plain", 415,
                       "UnsupportedMediaType", "the body of the request was in an unknown format"},
        BadRequestCase{"StrategicMergeOnCustomResource", "PATCH",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db", "{}",
                       "application/strategic-merge-patch+json", 415, "UnsupportedMediaType",
                       "accepted media types include: application/json-patch+json, application/merge-patch+json"},
        BadRequestCase{"HugeBody", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
                       std::string(4 * 1024 * 1024, ' '), "application/json", 413, "RequestEntityTooLarge",
                       "limit is 3145728"},
        BadRequestCase{"AlreadyExists", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses", kPg,
                       "application/json", 409, "AlreadyExists", "postgreses.apps.cozystack.io \"db\" already exists"},
        BadRequestCase{"MissingNamespace", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/absent/postgreses", kPg,
                       "application/json", 404, "NotFound", "namespaces \"absent\" not found"},
        BadRequestCase{"KindMissing", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
                       R"({"apiVersion":"apps.cozystack.io/v1alpha1","metadata":{"name":"x"}})", "application/json",
                       400, "BadRequest", "Object 'Kind' is missing"},
        BadRequestCase{"NameMismatch", "PUT", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db",
                       R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":"other"}})",
                       "application/json", 400, "BadRequest",
                       "the name of the object (other) does not match the name on the URL (db)"},
        BadRequestCase{"UpdateWithoutResourceVersion", "PUT",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db", kPg, "application/json",
                       422, "Invalid", "metadata.resourceVersion: Invalid value: 0: must be specified for an update"},
        BadRequestCase{
            "StaleResourceVersion", "PUT", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db",
            R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":"db","resourceVersion":"1"},"spec":{"replicas":3}})",
            "application/json", 409, "Conflict",
            "Operation cannot be fulfilled on postgreses.apps.cozystack.io \"db\": the object has been modified"},
        BadRequestCase{"JsonPatchTestFails", "PATCH",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db",
                       R"([{"op":"test","path":"/spec/replicas","value":9}])", "application/json-patch+json", 422,
                       "Invalid", "test failed"},
        BadRequestCase{"JsonPatchNotAnArray", "PATCH",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db", R"({"op":"add"})",
                       "application/json-patch+json", 400, "BadRequest", "jsonpatch"},
        BadRequestCase{"BadLabelSelector", "GET",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses?labelSelector=a%20in%20b", "",
                       "", 400, "BadRequest", "unable to parse requirement"},
        BadRequestCase{
            "InvalidName", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
            R"({"apiVersion":"apps.cozystack.io/v1alpha1","kind":"Postgres","metadata":{"name":"Bad_Name"}})",
            "application/json", 422, "Invalid", "a lowercase RFC 1123 subdomain"},
        BadRequestCase{"MethodNotAllowedOnSubresource", "POST",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db/status", "{}",
                       "application/json", 405, "MethodNotAllowed", "does not allow this method"},
        BadRequestCase{"BadDryRun", "POST",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses?dryRun=Some", kPg,
                       "application/json", 400, "BadRequest", "dryRun"},
        BadRequestCase{"DeeplyNestedJson", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
                       std::string(100000, '[') + std::string(100000, ']'), "application/json", 400, "BadRequest",
                       "exceeded max depth"},
        BadRequestCase{"DeeplyNestedJsonPatch", "PATCH",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses/db",
                       "{\"spec\":" + std::string(50000, '[') + std::string(50000, ']') + "}",
                       "application/merge-patch+json", 400, "BadRequest", "exceeded max depth"},
        BadRequestCase{"MalformedYaml", "POST", "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
                       "kind: [unclosed", "application/yaml", 400, "BadRequest", "error converting YAML to JSON"},
        BadRequestCase{"WrongApiVersionInBody", "POST",
                       "/apis/apps.cozystack.io/v1alpha1/namespaces/default/postgreses",
                       R"({"apiVersion":"other.io/v1","kind":"Postgres","metadata":{"name":"x"}})", "application/json",
                       400, "BadRequest", "does not match the expected API version"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace dha::testing::test
