// A KeyDB-like engine as an outside vendor ships it: the count lives at spec.topology.nodes
// (the CRD's /scale path), one node is the primary, the rest serve reads. Built twice: as the
// correct adapter (keydb.so) and, with KEYDB_READS_WRONG_PATH, as one that declares
// spec.topology.nodes but reads spec.replicas (keydb-wrong-path.so), which the checker must fail,
// and with KEYDB_NO_LAG_QUERY as one without the lag query (keydb-no-lag.so), whose write query
// the host reads all the same, so its write-burst gate holds as with keydb.so.
#include <algorithm>
#include <string>

#include "dha/sdk/sdk.hpp"

namespace keydb {

#ifdef KEYDB_READS_WRONG_PATH
constexpr const char* kId = "keydb-wrong-path";
constexpr const char* kReadPath = "spec.replicas";
#elif defined(KEYDB_NO_LAG_QUERY)
constexpr const char* kId = "keydb-no-lag";
constexpr const char* kReadPath = "spec.topology.nodes";
#else
constexpr const char* kId = "keydb";
constexpr const char* kReadPath = "spec.topology.nodes";
#endif

class KeyDbAdapter final : public dha::sdk::EngineAdapter {
 public:
  static constexpr dha::sdk::PluginInfo info{.id = kId,
                                             .name = "KeyDB engine adapter",
                                             .version = "0.3.0",
                                             .vendor = "KeyDB Vendor Ltd.",
                                             .description = "Scales KeyDB read nodes on connected clients",
                                             .config_schema = R"({"keys": [
        {"name": "minNodes", "type": "integer", "default": 1,
         "description": "Fewest nodes a KeyDB cluster keeps, whatever the load"}]})"};

  KeyDbAdapter(const dha::sdk::Host&, const dha::sdk::json::Value& config) : min_nodes_(config["minNodes"].GetInt64()) {
    if (min_nodes_ < 1) throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "minNodes must be at least 1");
  }

  std::vector<dha::sdk::TargetKind> targets() const override {
    return {{.api_group = "db.example.com",
             .version = "v1",
             .kind = "KeyDB",
             .plural = "keydbs",
             .actuator = "keydb-nodes"}};
  }

  dha::sdk::Topology topology(const dha::sdk::ObjectView& target) const override {
    if (target.name().empty()) throw dha::sdk::Error(DHA_INVALID_ARGUMENT, "target object has no metadata.name");
    dha::sdk::Topology t;
    t.primary_count = 1;
    t.quorum_floor = min_nodes_;
    t.current_replicas = dha::sdk::values::read_replicas(target.json(), kReadPath);
    t.replicas_path = "spec.topology.nodes";
    t.release_name = "keydb-" + std::string(target.name());
    t.health = dha::sdk::HealthSource::workload_monitor(t.release_name);
    return t;
  }

  dha::sdk::Queries queries(const dha::sdk::QueryRequest& request) const override {
    dha::sdk::Queries q;
    for (const auto& type : request.metric_types)
      if (type == "ReadConnections")
        q.driver[type] = R"(sum(keydb_connected_clients{namespace="${namespace}", cluster="${name}", role="replica"}))";
        // The host reads the write activity only beside a lag in seconds (it is the lag brake's
        // second signal), so without this query the write-burst gate would see writeRate null and
        // never hold.
#ifndef KEYDB_NO_LAG_QUERY
    q.lag_query = R"(max(keydb_replication_lag_seconds{namespace="${namespace}", cluster="${name}", role="replica"}))";
    q.lag_unit = "seconds";
#endif
    q.write_activity =
        R"(sum(rate(keydb_commands_processed_total{namespace="${namespace}", cluster="${name}", role="primary"}[1m])))";
    return q;
  }

 private:
  int64_t min_nodes_;
};

}  // namespace keydb

DHA_EXPORT_PLUGINS(keydb::KeyDbAdapter)
