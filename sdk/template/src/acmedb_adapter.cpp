#include "acmedb_adapter.hpp"

#include <string>

namespace acme {

AcmeDbAdapter::AcmeDbAdapter(const dha::sdk::Host& host, const dha::sdk::json::Value& config)
    : host_(host), min_quorum_(config["minQuorum"].GetInt64()) {
  // The host already checked the type and filled the default; the value is ours to judge.
  if (min_quorum_ < 1) throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "minQuorum must be at least 1");
  host_.info("AcmeDB adapter ready, minQuorum " + std::to_string(min_quorum_));
}

std::vector<dha::sdk::TargetKind> AcmeDbAdapter::targets() const {
  return {{.api_group = "db.example.com", .version = "v1", .kind = "AcmeDB", .plural = "acmedbs"}};
}

dha::sdk::Topology AcmeDbAdapter::topology(const dha::sdk::ObjectView& target) const {
  // Refuse what is not an object of ours rather than guess (dha-plugin-check probes this).
  if (target.name().empty()) throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "target object has no metadata.name");
  dha::sdk::Topology t;
  t.primary_count = 1;
  t.quorum_floor = std::max<int64_t>(min_quorum_, dha::sdk::values::read_int(target.spec(), "quorum", 1));
  t.current_replicas = dha::sdk::values::read_replicas(target.json(), "spec.replicas");
  t.replicas_path = "spec.replicas";
  t.release_name = "acmedb-" + std::string(target.name());
  // Health comes from the cozystack WorkloadMonitor named after the release.
  t.health = dha::sdk::HealthSource::workload_monitor(t.release_name);
  t.resources_preset = std::string(dha::sdk::values::read_string(target.spec(), "resourcesPreset", "t1.small"));
  if (dha::sdk::values::read_bool(target.spec(), "sharded", false)) {
    t.scalable = false;
    t.reason = "sharded AcmeDB is not horizontally scalable";
    // Logged through the host, so the operator's log (or a test's FakeHost) says why.
    host_.warning("AcmeDB " + std::string(target.name()) + " is sharded; not scaling it");
  }
  return t;
}

dha::sdk::Queries AcmeDbAdapter::queries(const dha::sdk::QueryRequest& request) const {
  // Label values are placeholders: the host fills them in escaped and checks that every
  // selector is scoped to the target's namespace.
  dha::sdk::Queries q;
  for (const auto& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = R"(sum(acmedb_client_connections{namespace="${namespace}", cluster="${name}", role="replica"}))";
    }
  }
  q.lag_query = R"(max(acmedb_replica_delay_seconds{namespace="${namespace}", cluster="${name}"}))";
  q.lag_unit = "seconds";
  q.write_activity =
      R"(sum(rate(acmedb_writes_total{namespace="${namespace}", cluster="${name}", role="primary"}[5m])))";
  return q;
}

}  // namespace acme
