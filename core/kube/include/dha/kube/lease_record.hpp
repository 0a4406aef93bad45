#pragma once
// Reading and writing the spec of a coordination.k8s.io/v1 Lease: shared by the leader elector
// (one Lease) and the shard leases (one per shard and per member slot), so both write the
// same fields the same way.

#include <rapidjson/document.h>

#include "dha/kube/clock.hpp"
#include "dha/kube/config.hpp"
#include "dha/kube/leader_election.hpp"

namespace dha::kube::lease {

LeaseRecord read_record(const rapidjson::Value& lease);
// Sets spec.{holderIdentity, leaseDurationSeconds, acquireTime, renewTime, leaseTransitions}.
void write_spec(rapidjson::Document& lease, const LeaseRecord& r);
// leaseDurationSeconds for `d`: whole seconds, rounded up, at least 1.
int whole_seconds_up(Duration d);
// A new Lease object `name` in `namespace_` with spec `r`.
rapidjson::Document new_lease(const std::string& namespace_, const std::string& name, const LeaseRecord& r);

// Throws std::invalid_argument ("<who>: ...") unless retry_period < renew_deadline < lease_duration.
void check_timings(const char* who, Duration lease_duration, Duration renew_deadline, Duration retry_period);
// The config of a Client that only renews Leases: no client-side rate limit (it never waits
// behind the shared limiter) and a request timeout of one retry period, so a hung request cannot
// make its holder miss the renew deadline unnoticed.
Config client_config(const Config& shared, Duration retry_period);

}  // namespace dha::kube::lease
