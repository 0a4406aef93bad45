#pragma once

#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "dha/testing/test_cluster.hpp"

// The chart's RBAC on a real API server: rendered from charts/db-autoscaler as `helm template`
// would, applied unchanged except that the bindings name the test's operator ServiceAccounts.
// Then what the operator was granted can be compared with what it did.
namespace dha::optest {

inline constexpr const char* kReleaseNamespace = "cozy-db-autoscaler";

// One permission as RBAC spells it: API group ("" = core), resource ("leases",
// "databasehorizontalautoscalers/status") and verb.
struct Grant {
  std::string group, resource, verb;
  auto operator<=>(const Grant&) const = default;
};

// Renders the chart (tests/chart/render-chart.sh) into YAML text; throws with its output on failure.
std::string render_chart(const std::vector<std::string>& extra_args = {});

// Creates the rendered ClusterRoles, Roles and their bindings as the cluster's admin, each
// ServiceAccount subject of the chart's own ServiceAccount replaced by `service_accounts`
// ({namespace, name}); one that exists already is replaced. Returns the rules granted to that
// ServiceAccount, flattened.
std::set<Grant> apply_chart_rbac(const testing::TestCluster& cluster, const std::string& rendered,
                                 const std::vector<std::pair<std::string, std::string>>& service_accounts);

// What one request asked for in RBAC terms: its path and method (GET on a collection is list,
// with watch=true watch). Non-resource paths give an empty resource.
Grant grant_of(const testing::AuditEntry& request);

}  // namespace dha::optest
