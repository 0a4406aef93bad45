#include "dha/admission/ownership_policy.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace dha::admission {
namespace {

const std::vector<std::string> allowed_users{std::string(default_apps_api_username)};
const std::string apps_api(default_apps_api_username);
constexpr const char* gitops = "system:serviceaccount:flux-system:kustomize-controller";

// A HelmRelease with an optional marker and an optional raw JSON replicas value.
std::string release(std::optional<std::string> marker, std::optional<std::string> replicas_json) {
  std::string annotations =
      marker ? "\"annotations\":{\"" + std::string(managed_by_annotation) + "\":\"" + *marker + "\"}" : "";
  std::string values = replicas_json ? "\"replicas\":" + *replicas_json + ",\"size\":\"10Gi\"" : "\"size\":\"10Gi\"";
  return "{\"apiVersion\":\"helm.toolkit.fluxcd.io/"
         "v2\",\"kind\":\"HelmRelease\",\"metadata\":{\"name\":\"postgres-db\"," +
         annotations + (annotations.empty() ? "" : ",") + "\"namespace\":\"tenant-a\"},\"spec\":{\"values\":{" +
         values + "}}}";
}

struct Case {
  const char* name;
  std::string old_json;
  std::string new_json;
  std::string user;
  bool allowed;
  std::string message;  // exact message when denied
};

std::string denial(const std::string& attempt, const std::string& marker = "db") {
  return "replicas of this database is managed by DatabaseHorizontalAutoscaler \"" + marker +
         "\"; delete the DHA to regain manual control (" + attempt + ")";
}

// `release` with `extra` (",\"field\":...") added to its spec.
std::string with_spec(const std::string& base, const std::string& extra) {
  std::string out = base;
  return out.insert(out.find("\"spec\":{") + 8, extra.substr(1) + ",");
}

TEST(EvaluateOwnership, EveryBranch) {
  const std::string managed3 = release("db", "3");
  const std::string post_renderer =
      R"(,"postRenderers":[{"kustomize":{"patches":[{"patch":"- op: replace\n  path: /spec/instances\n  value: 9"}]}}])";
  const std::string chart_v1 =
      R"(,"chart":{"spec":{"chart":"postgres","version":"0.10.0","sourceRef":{"kind":"HelmRepository","name":"cozystack-apps"}}})";
  const std::string chart_v2 =
      R"(,"chart":{"spec":{"chart":"postgres","version":"0.11.0","sourceRef":{"kind":"HelmRepository","name":"cozystack-apps"}}})";
  const std::string chart_other_source =
      R"(,"chart":{"spec":{"chart":"postgres","version":"0.10.0","sourceRef":{"kind":"HelmRepository","name":"mine"}}})";
  const std::string values_from = R"(,"valuesFrom":[{"kind":"ConfigMap","name":"more-replicas"}])";
  const Case cases[] = {
      // Unparseable objects pass.
      {"old object unparseable", "{not json", release("db", "5"), gitops, true, ""},
      {"new object unparseable", managed3, "{\"spec\":", gitops, true, ""},
      {"neither object", "null", "null", gitops, true, ""},
      // Creates: a release carrying the marker is the apps API's to create.
      {"create of an unmanaged release", "null", release(std::nullopt, "5"), gitops, true, ""},
      {"create of a managed release", "null", release("db", "5"), gitops, false,
       denial("attempted creation of a managed release by \"" + std::string(gitops) + "\"")},
      {"create with an old object that is not an object", "[1,2]", release("db", "5"), "alice", false,
       denial("attempted creation of a managed release by \"alice\"")},
      {"create by the apps API", "null", release("db", "5"), apps_api, true, ""},
      // Deletes: a managed release deleted (and re-created without its marker) would escape
      // the DHA; Kubernetes' own controllers may still delete it with its owner or namespace.
      {"delete of an unmanaged release", release(std::nullopt, "3"), "null", gitops, true, ""},
      {"delete of a managed release", managed3, "null", gitops, false,
       denial("attempted deletion by \"" + std::string(gitops) + "\"")},
      {"delete by the apps API", managed3, "null", apps_api, true, ""},
      {"delete by the garbage collector", managed3, "null",
       "system:serviceaccount:kube-system:generic-garbage-collector", true, ""},
      {"delete with the namespace", managed3, "null", "system:serviceaccount:kube-system:namespace-controller", true,
       ""},
      // Unmanaged objects pass whatever happens to replicas.
      {"unmanaged replicas change", release(std::nullopt, "3"), release(std::nullopt, "5"), gitops, true, ""},
      {"empty marker is unmanaged", release("", "3"), release("", "5"), gitops, true, ""},
      {"unmanaged replicas removed", release(std::nullopt, "3"), release(std::nullopt, std::nullopt), gitops, true, ""},
      // No change passes.
      {"managed, replicas equal", managed3, managed3, gitops, true, ""},
      {"managed, 3 equals 3.0", managed3, release("db", "3.0"), gitops, true, ""},
      {"managed, both absent", release("db", std::nullopt), release("db", std::nullopt), gitops, true, ""},
      {"managed, same string", release("db", "\"3\""), release("db", "\"3\""), gitops, true, ""},
      {"managed, other values change", managed3, release("db", "3").replace(release("db", "3").find("10Gi"), 4, "20Gi"),
       gitops, true, ""},
      // The allowed identity passes even when it changes replicas or the marker; the operator's
      // own ServiceAccount is not one (its changes arrive through the apps API).
      {"operator changes replicas", managed3, release("db", "5"),
       "system:serviceaccount:cozy-db-autoscaler:db-autoscaler", false,
       denial("attempted change 3 -> 5 by \"system:serviceaccount:cozy-db-autoscaler:db-autoscaler\"")},
      {"apps API changes replicas", managed3, release("db", "5"), std::string(default_apps_api_username), true, ""},
      {"apps API removes the marker", managed3, release(std::nullopt, "3"), std::string(default_apps_api_username),
       true, ""},
      // Writers fighting the autoscaler are denied.
      {"gitops changes replicas", managed3, release("db", "5"), gitops, false,
       denial("attempted change 3 -> 5 by \"" + std::string(gitops) + "\"")},
      {"fractional change", managed3, release("db", "3.5"), "alice", false,
       denial("attempted change 3 -> 3.5 by \"alice\"")},
      {"huge number printed like Go", managed3, release("db", "1e21"), "alice", false,
       denial("attempted change 3 -> 1e+21 by \"alice\"")},
      {"million printed like Go", managed3, release("db", "1000000"), "alice", false,
       denial("attempted change 3 -> 1e+06 by \"alice\"")},
      {"user matching is exact (groups ignored)", managed3, release("db", "5"), apps_api + " ", false,
       denial("attempted change 3 -> 5 by \"" + apps_api + " \"")},
      {"empty username is not allowed", managed3, release("db", "5"), "", false,
       denial("attempted change 3 -> 5 by \"\"")},
      // No bypass by deleting, stringifying or un-marking.
      {"bypass: replicas deleted", managed3, release("db", std::nullopt), "alice", false,
       denial("attempted change 3 -> <none> by \"alice\"")},
      {"bypass: replicas stringified", managed3, release("db", "\"5\""), "alice", false,
       denial("attempted change 3 -> \"5\" by \"alice\"")},
      {"bypass: replicas nulled", managed3, release("db", "null"), "alice", false,
       denial("attempted change 3 -> null by \"alice\"")},
      {"bypass: replicas made an object", managed3, release("db", "{\"n\":5}"), "alice", false,
       denial("attempted change 3 -> <object> by \"alice\"")},
      {"bypass: marker removed alone", managed3, release(std::nullopt, "3"), "alice", false,
       denial("attempted removal of the managed-by marker by \"alice\"")},
      {"bypass: marker emptied", managed3, release("", "3"), "alice", false,
       denial("attempted removal of the managed-by marker by \"alice\"")},
      {"bypass: marker removed and replicas changed", managed3, release(std::nullopt, "7"), "alice", false,
       denial("attempted change 3 -> 7 by \"alice\"")},
      {"marker changed to another DHA", managed3, release("other", "3"), "alice", false,
       denial("attempted change of the managed-by marker to \"other\" by \"alice\"")},
      {"marker only on new object still protects", release(std::nullopt, "3"), release("db", "5"), "alice", false,
       denial("attempted change 3 -> 5 by \"alice\"")},
      {"replicas added to a managed object", release("db", std::nullopt), release("db", "4"), "alice", false,
       denial("attempted change <none> -> 4 by \"alice\"")},
      {"string replicas changed", release("db", "\"3\""), release("db", "\"4\""), "alice", false,
       denial("attempted change \"3\" -> \"4\" by \"alice\"")},
      {"username with quotes is escaped", managed3, release("db", "4"), "a\"b", false,
       denial("attempted change 3 -> 4 by \"a\\\"b\"")},
      // The count set another way: rendered manifests patched, values read from elsewhere,
      // another chart version or source.
      {"bypass: post-renderer added", managed3, with_spec(managed3, post_renderer), "alice", false,
       denial("attempted change of spec.postRenderers by \"alice\"")},
      {"bypass: post-renderer removed", with_spec(managed3, post_renderer), managed3, "alice", false,
       denial("attempted change of spec.postRenderers by \"alice\"")},
      {"bypass: valuesFrom added", managed3, with_spec(managed3, values_from), "alice", false,
       denial("attempted change of spec.valuesFrom by \"alice\"")},
      {"bypass: chart version changed", with_spec(managed3, chart_v1), with_spec(managed3, chart_v2), "alice", false,
       denial("attempted change of spec.chart by \"alice\"")},
      {"bypass: chart source changed", with_spec(managed3, chart_v1), with_spec(managed3, chart_other_source), "alice",
       false, denial("attempted change of spec.chart by \"alice\"")},
      {"bypass: chartRef added", managed3, with_spec(managed3, R"(,"chartRef":{"kind":"OCIRepository","name":"x"})"),
       "alice", false, denial("attempted change of spec.chartRef by \"alice\"")},
      {"same chart and post-renderer pass", with_spec(with_spec(managed3, chart_v1), post_renderer),
       with_spec(with_spec(managed3, chart_v1), post_renderer), "alice", true, ""},
      {"apps API changes the chart version", with_spec(managed3, chart_v1), with_spec(managed3, chart_v2), apps_api,
       true, ""},
      {"unmanaged post-renderer added", release(std::nullopt, "3"),
       with_spec(release(std::nullopt, "3"), post_renderer), "alice", true, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto verdict = evaluate_ownership(c.old_json, c.new_json, c.user, allowed_users);
    EXPECT_EQ(verdict.allowed, c.allowed);
    if (c.allowed) {
      EXPECT_EQ(verdict.code, 200);
      EXPECT_EQ(verdict.reason, "");
      EXPECT_EQ(verdict.message, "");
    } else {
      EXPECT_EQ(verdict.code, 403);
      EXPECT_EQ(verdict.reason, "Forbidden");
      EXPECT_EQ(verdict.message, c.message);
    }
  }
}

TEST(EvaluateOwnership, AllowedUsersComeFromTheCaller) {
  const auto old_json = release("db", "3");
  const auto new_json = release("db", "4");
  EXPECT_FALSE(evaluate_ownership(old_json, new_json, "custom", allowed_users).allowed);
  EXPECT_TRUE(evaluate_ownership(old_json, new_json, "custom", {"custom"}).allowed);
  EXPECT_FALSE(evaluate_ownership(old_json, new_json, apps_api, {"custom"}).allowed);
}

TEST(EvaluateOwnership, LongStringValueIsTruncatedInTheMessage) {
  const std::string long_value(500, 'x');
  auto verdict =
      evaluate_ownership(release("db", "3"), release("db", "\"" + long_value + "\""), "alice", allowed_users);
  ASSERT_FALSE(verdict.allowed);
  EXPECT_NE(verdict.message.find("-> \"" + std::string(64, 'x') + "\"... by"), std::string::npos) << verdict.message;
}

TEST(EvaluateOwnership, DeeplyNestedValuesNeitherCrashNorRecurse) {
  const int depth = 200000;
  const std::string deep = std::string(depth, '[') + std::string(depth, ']');
  EXPECT_FALSE(evaluate_ownership(release("db", deep), release("db", "3"), "alice", allowed_users).allowed);
  EXPECT_TRUE(evaluate_ownership(release("db", deep), release("db", deep), "alice", allowed_users).allowed);
}

}  // namespace
}  // namespace dha::admission
