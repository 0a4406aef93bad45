#include <gtest/gtest.h>

#include "dha/kube/resource.hpp"

namespace dha::kube {
namespace {

struct PathCase {
  const char* name;
  ResourceRef ref;
  const char* sub;
  const char* want;
};

class KubeResourcePath : public testing::TestWithParam<PathCase> {};

TEST_P(KubeResourcePath, Builds) {
  const auto& c = GetParam();
  EXPECT_EQ(resource_path(c.ref, c.sub), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, KubeResourcePath,
    testing::Values(
        PathCase{"core_collection_all_namespaces", {"", "v1", "pods", "", ""}, "", "/api/v1/pods"},
        PathCase{"core_namespaced", {"", "v1", "pods", "ns", "p"}, "", "/api/v1/namespaces/ns/pods/p"},
        PathCase{"group_namespaced_status",
                 {"apps.cozystack.io", "v1alpha1", "postgreses", "t", "db"},
                 "status",
                 "/apis/apps.cozystack.io/v1alpha1/namespaces/t/postgreses/db/status"},
        PathCase{"scale",
                 {"postgresql.cnpg.io", "v1", "clusters", "t", "c"},
                 "scale",
                 "/apis/postgresql.cnpg.io/v1/namespaces/t/clusters/c/scale"},
        PathCase{"cluster_scoped",
                 {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "", "x.y"},
                 "",
                 "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.y"},
        PathCase{"namespace_object_is_not_nested", {"", "v1", "namespaces", "ns", "ns"}, "", "/api/v1/namespaces/ns"},
        PathCase{"lease",
                 {"coordination.k8s.io", "v1", "leases", "sys", "db-autoscaler.autoscaling.cozystack.io"},
                 "",
                 "/apis/coordination.k8s.io/v1/namespaces/sys/leases/db-autoscaler.autoscaling.cozystack.io"}),
    [](const testing::TestParamInfo<PathCase>& info) { return std::string(info.param.name); });

TEST(KubeResourcePath, RefusesSegmentsThatChangeThePath) {
  EXPECT_THROW(resource_path({"", "v1", "pods", "ns", "a/b"}), std::invalid_argument);
  EXPECT_THROW(resource_path({"", "v1", "pods", "..", "x"}), std::invalid_argument);
  EXPECT_THROW(resource_path({"", "v1", "pods", "ns", "x?watch=1"}), std::invalid_argument);
  EXPECT_THROW(resource_path({"", "", "pods", "ns", "x"}), std::invalid_argument);
  EXPECT_THROW(resource_path({"", "v1", "", "ns", "x"}), std::invalid_argument);
  EXPECT_THROW(resource_path({"", "v1", "pods", "ns", ""}, "status"), std::invalid_argument);
}

TEST(KubeListQuery, EncodesAndOrders) {
  ListOptions o;
  o.label_selector = "app in (a,b)";
  o.limit = 10;
  o.continue_token = "abc=";
  EXPECT_EQ(list_query(o, false), "?labelSelector=app%20in%20%28a%2Cb%29&limit=10&continue=abc%3D");
  ListOptions w;
  w.resource_version = "42";
  w.allow_watch_bookmarks = true;
  w.timeout_seconds = 5;
  w.limit = 10;  // ignored for watch
  EXPECT_EQ(list_query(w, true), "?watch=true&resourceVersion=42&allowWatchBookmarks=true&timeoutSeconds=5");
  EXPECT_EQ(list_query({}, false), "");
}

TEST(KubeKeys, SplitAndJoin) {
  EXPECT_EQ(split_key("ns/name"), (std::pair<std::string, std::string>{"ns", "name"}));
  EXPECT_EQ(split_key("name"), (std::pair<std::string, std::string>{"", "name"}));
  EXPECT_EQ((ResourceRef{"", "v1", "pods", "ns", "p"}).key(), "ns/p");
  EXPECT_EQ((ResourceRef{"", "v1", "nodes", "", "n"}).key(), "n");
}

}  // namespace
}  // namespace dha::kube
