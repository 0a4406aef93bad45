#pragma once

#include <string>

#include "dha/testing/test_cluster.hpp"

// Tests sharing one real control plane (testing::process_test_cluster) start from what a fresh
// one holds: what a scenario created is deleted before the next one, without a namespace
// controller (kube-apiserver alone never finishes deleting a Namespace, so the namespaces stay).
namespace dha::optest {

// Creates the Namespace `namespace_json` describes unless one of that name exists (409);
// throws with the server's answer on any other refusal.
void create_namespace_if_missing(const testing::TestCluster& cluster, const std::string& namespace_json);

// Deletes, as admin, everything an OperatorWorld scenario creates: in the tenant namespace the
// DHAs (their finalizers first: no operator runs to release them), the fixture applications,
// WorkloadMonitors, CNPG Clusters, HelmReleases, ResourceQuotas and Events; the leader Leases of
// the release namespace; webhook configurations and the ClusterRoles a test adds. Returns once
// no DHA is left; throws with the answer when a delete is refused.
void clear_scenario_objects(const testing::TestCluster& cluster);

}  // namespace dha::optest
