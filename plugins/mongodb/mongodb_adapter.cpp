#include "mongodb_adapter.hpp"

#include <optional>
#include <string>

namespace dha::plugins {
namespace {

namespace json = sdk::json;
namespace values = sdk::values;

constexpr std::string_view kInstanceLabel = "label_app_kubernetes_io_instance";

constexpr std::string_view kPodJoin =
    R"(* on(namespace,pod) group_left() kube_pod_labels{namespace="${namespace}", label_app_kubernetes_io_instance="mongodb-${name}"})";

// Grouped: of every pod of the namespace, the instance label carried over to aggregate by.
constexpr std::string_view kGroupedPodJoin =
    R"(* on(namespace,pod) group_left(label_app_kubernetes_io_instance) kube_pod_labels{namespace="${namespace}"})";

std::string state_is(int state) {
  return R"(mongodb_mongod_replset_my_state{namespace="${namespace}"} == )" + std::to_string(state);
}

// PromQL precedence makes `X and on(..) (state == S) * join` read as `X and ((state == S) * join)`:
// X restricted to this application's members in replica-set state S (1 primary, 2 secondary).
std::string in_state(int state) { return " and on(namespace,pod) (" + state_is(state) + ") " + std::string(kPodJoin); }

// Grouped, `X` in state S of every application at once, with the instance label to aggregate by:
// `and` keeps only X's labels, so the state filter comes first, matched pod by pod (a pod is
// one member of one application), and the join that names the application after it.
std::string grouped_in_state(const std::string& x, int state) {
  return "(" + x + " and on(namespace,pod) (" + state_is(state) + ")) " + std::string(kGroupedPodJoin);
}

std::string sum_by_instance(const std::string& x) {
  return "sum by (" + std::string(kInstanceLabel) + ")( " + x + " )";
}

const char* const kConnections = R"(mongodb_ss_connections{namespace="${namespace}", conn_type="current"})";
const char* const kCpu = R"(rate(container_cpu_usage_seconds_total{namespace="${namespace}", container="mongod"}[5m]))";
const char* const kLag = R"(mongodb_mongod_replset_member_replication_lag{namespace="${namespace}"})";
const char* const kWrites =
    R"(rate(mongodb_ss_opcounters{namespace="${namespace}", legacy_op_type=~"insert|update|delete"}[5m]))";

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
  q.grouped = sdk::GroupedQueries{
      {{std::string(kInstanceLabel), "mongodb-${name}"}},
      {},
      "max by (" + std::string(kInstanceLabel) + ")( " + kLag + " " + std::string(kGroupedPodJoin) + " )",
      sum_by_instance(grouped_in_state(kWrites, 1))};
  for (const std::string& type : request.metric_types) {
    if (type == "ReadConnections") {
      q.driver[type] = "sum( " + std::string(kConnections) + secondaries + " )";
      q.grouped->driver[type] = sum_by_instance(grouped_in_state(kConnections, 2));
    } else if (type == "ReadCPUUtilization") {
      q.driver[type] = "sum( " + std::string(kCpu) + secondaries + " ) * 1000";
      q.grouped->driver[type] = sum_by_instance(grouped_in_state(kCpu, 2)) + " * 1000";
    }
  }
  q.lag_query = "max( " + std::string(kLag) + " " + std::string(kPodJoin) + " )";
  q.lag_unit = "seconds";
  q.write_activity = "sum( " + std::string(kWrites) + in_state(1) + " )";
  return q;
}

}  // namespace dha::plugins
