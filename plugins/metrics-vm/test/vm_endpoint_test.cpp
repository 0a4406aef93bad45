#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "dha/sdk/error.hpp"
#include "vm_endpoint.hpp"
#include "vm_metric_source.hpp"

namespace dha::plugins {
namespace {

TEST(VmEndpoint, DefaultTemplateIsTheReferenceRule) {
  const VmEndpoint e{"", std::string(kDefaultUrlTemplate)};
  EXPECT_EQ(e.base_for("tenant-a", "tenant-root"),
            "http://vmselect-shortterm.tenant-root.svc:8481/select/0/prometheus");
}

TEST(VmEndpoint, FixedUrlWinsAndTrailingSlashesGo) {
  const VmEndpoint e{"http://127.0.0.1:8428/", std::string(kDefaultUrlTemplate)};
  EXPECT_EQ(e.base_for("tenant-a", std::nullopt), "http://127.0.0.1:8428");
}

TEST(VmEndpoint, TemplateErrorsAreTyped) {
  const VmEndpoint e{"", std::string(kDefaultUrlTemplate)};
  const struct {
    std::optional<std::string> monitoring;
    dha_status want;
  } cases[] = {
      {std::nullopt, DHA_UNAVAILABLE}, {"", DHA_UNAVAILABLE},           {"evil.example.com/x?", DHA_INVALID_ARGUMENT},
      {"UPPER", DHA_INVALID_ARGUMENT}, {"-dash", DHA_INVALID_ARGUMENT},
  };
  for (const auto& c : cases) {
    try {
      (void)e.base_for("tenant-a", c.monitoring);
      ADD_FAILURE() << c.monitoring.value_or("<none>");
    } catch (const sdk::Error& err) {
      EXPECT_EQ(err.status(), c.want) << c.monitoring.value_or("<none>");
    }
  }
  const VmEndpoint per_ns{"", "http://vm-${namespace}.svc:8428"};
  EXPECT_EQ(per_ns.base_for("tenant-a", std::nullopt), "http://vm-tenant-a.svc:8428");
  EXPECT_THROW((void)per_ns.base_for("a/b", std::nullopt), sdk::Error);
}

TEST(VmEndpoint, QueryIsPercentEncodedAndScopedToTheNamespace) {
  EXPECT_EQ(instant_query_url("http://h", R"(sum(x{namespace="a b"}) + 1)", "tenant-a"),
            "http://h/api/v1/query?query=sum%28x%7Bnamespace%3D%22a%20b%22%7D%29%20%2B%201"
            "&extra_label=namespace%3Dtenant-a");
  // A value cannot add a parameter of its own.
  EXPECT_EQ(instant_query_url("http://h", "up", "a&extra_label=x"),
            "http://h/api/v1/query?query=up&extra_label=namespace%3Da%26extra_label%3Dx");
}

TEST(VmEndpoint, AQueryWithoutANamespaceIsNeverBuilt) {
  try {
    (void)instant_query_url("http://h", R"(up{namespace="a"})", "");
    FAIL() << "an unscoped query URL was built";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("no namespace"), std::string::npos) << e.what();
  }
}

TEST(VmEndpoint, BaseUrlChecks) {
  const struct {
    const char* url;
    bool ok;
  } cases[] = {{"http://h:1", true},   {"https://h/select/0/prometheus", true},
               {"ftp://h", false},     {"h:8428", false},
               {"http://", false},     {"http://h/?a=1", false},
               {"http://h/#x", false}, {"http://h/ x", false}};
  for (const auto& c : cases) EXPECT_EQ(base_url_problem(c.url).empty(), c.ok) << c.url;
}

TEST(VmMetricSource, RefusesBadConfiguration) {
  const char* configs[] = {
      R"({"timeoutSeconds": 0})",         R"({"timeoutSeconds": -1})", R"({"maxResponseBytes": 0})",
      R"({"url": "localhost:8428"})",     R"({"urlTemplate": ""})",    R"({"url": 5})",
      R"({"urlTemplate": "gopher://x"})",
  };
  for (const char* c : configs) {
    const sdk::json::Document doc = sdk::json::parse(c, "config");
    try {
      VmMetricSource source(sdk::Host(), doc);
      ADD_FAILURE() << c;
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT) << c;
    }
  }
}

}  // namespace
}  // namespace dha::plugins
