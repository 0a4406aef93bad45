#pragma once

#include "dha/sdk/sdk.hpp"

namespace dha::plugins {

// Health of a postgresql.cnpg.io Cluster from its own status, for targets that have no
// WorkloadMonitor. Mirrors what the WorkloadMonitor would say:
//   availableReplicas = status.readyInstances (absent = 0: CNPG omits a zero count);
//   operational       = at least one ready instance, and the Cluster is not in a phase where the
//                       primary is changing hands or reconciliation is blocked
//                       ("Failing over", "Switchover in progress", "Unable ...",
//                       "Cluster cannot ...").
// A Cluster its operator has not observed yet (no status, or a status without phase and
// instances) is DHA_FAILED_PRECONDITION: the host freezes with HealthUnknown.
sdk::Health read_cnpg_cluster_health(const sdk::json::Value& cluster);

}  // namespace dha::plugins
