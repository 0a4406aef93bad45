// The AcmeDB kind as the test fixture plugins see it: one `db.example.com/v1 AcmeDB` object per
// database, `spec.replicas` its instance count, the cozystack release `acmedb-<name>` and its
// WorkloadMonitor for health. Each fixture adds only what it tests (its own queries, actuator or
// logging) on top. Header-only and built on the SDK alone, since plugins include it.
#pragma once

#include <string>

#include "dha/sdk/sdk.hpp"

namespace dha::testsupport {

// Scaled by the default actuator; a fixture with its own actuator sets `.actuator` on the copy.
inline sdk::TargetKind acmedb_target_kind() {
  return {.api_group = "db.example.com", .version = "v1", .kind = "AcmeDB", .plural = "acmedbs"};
}

// Takes the name as given: a fixture that must refuse a nameless object checks that first.
inline sdk::Topology acmedb_topology(const sdk::ObjectView& target) {
  sdk::Topology t;
  t.current_replicas = sdk::values::read_replicas(target.json(), "spec.replicas");
  t.release_name = "acmedb-" + std::string(target.name());
  t.health = sdk::HealthSource::workload_monitor(t.release_name);
  return t;
}

}  // namespace dha::testsupport
