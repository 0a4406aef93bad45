#include "mongodb_adapter.hpp"

#include <optional>
#include <string>

namespace dha::plugins {
namespace {

namespace json = sdk::json;
namespace values = sdk::values;

constexpr std::string_view kPodJoin =
    R"(* on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", label_app_kubernetes_io_instance="mongodb-${name}"})";

// PromQL precedence makes `X and on(..) (state == S) * join` read as `X and ((state == S) * join)`:
// X restricted to this application's members in replica-set state S (1 primary, 2 secondary).
std::string in_state(int state) {
  return R"( and on(namespace,pod) (mongodb_mongod_replset_my_state{namespace="${namespace}"} == )" +
         std::to_string(state) + ") " + std::string(kPodJoin);
}

}  // namespace

MongodbAdapter::MongodbAdapter(const sdk::Host&, const json::Value& config)
    : allow_scaling_(json::bool_or(config, "allowScaling", false, "mongodb configuration")),
      default_preset_(json::string_or(config, "defaultResourcesPreset", "t1.small", "mongodb configuration")) {}

std::vector<sdk::TargetKind> MongodbAdapter::targets() const {
  return {{"apps.cozystack.io", "v1alpha1", "MongoDB", "mongodbs", "builtin.merge-patch"}};
}

sdk::Topology MongodbAdapter::topology(const sdk::ObjectView& target) const {
  // Quorum floor 1 as the reference: the election majority is not derived.
  sdk::Topology t = sdk::cozystack_application_topology(target, {"mongodb", "MongoDB", "mongodb", default_preset_});
  // Strongest reason last: sharding outranks the switch, which outranks a missing replicas value.
  if (!allow_scaling_) {
    t.scalable = false;
    t.reason = kNotEnabledReason;
  }
  if (values::read_bool(target.spec(), "sharding", false)) {
    t.scalable = false;
    t.reason = kShardedReason;
  }
  return t;
}

sdk::Queries MongodbAdapter::queries(const sdk::QueryRequest& request) const {
  const std::string secondaries = in_state(2);
  sdk::Queries q;
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = R"(sum( mongodb_ss_connections{namespace="${namespace}", conn_type="current"})" + secondaries + " )";
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] =
          R"(sum( rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="mongod"}[5m]))" +
          secondaries + " ) * 1000";
    }
  }
  q.lag_query = R"(max( mongodb_mongod_replset_member_replication_lag{namespace="${namespace}"} )" +
                std::string(kPodJoin) + " )";
  q.lag_unit = "seconds";
  q.write_activity =
      R"(sum( rate(mongodb_ss_opcounters{namespace="${namespace}", legacy_op_type=~"insert|update|delete"}[5m]))" +
      in_state(1) + " )";
  return q;
}

}  // namespace dha::plugins
