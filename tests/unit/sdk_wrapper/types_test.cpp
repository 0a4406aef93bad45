#include <gtest/gtest.h>

#include <string>

#include "dha/sdk/plugin.hpp"

namespace dha::sdk {
namespace {

template <class T>
T round_trip(const T& value) {
  const json::Document doc = json::parse(value.to_json(), "round trip");
  return T::from_json(doc);
}

std::string error_of(const char* text, auto reader) {
  try {
    const json::Document doc = json::parse(text, "test");
    reader(doc);
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), DHA_INVALID_ARGUMENT);
    return e.what();
  }
  return "";
}

TEST(SdkTypes, TopologyRoundTripsEveryField) {
  Topology t;
  t.primary_count = 1;
  t.quorum_floor = 3;
  t.scalable = false;
  t.reason = "nope";
  t.current_replicas = 4;
  t.replicas_path = "spec.instances";
  t.release_name = "postgres-db";
  t.health = HealthSource::workload_monitor("postgres-db");
  t.resources = Resources{"500m", "1Gi"};
  t.resources_preset = "";
  EXPECT_EQ(round_trip(t), t);

  t.current_replicas.reset();
  t.resources.reset();
  t.health = HealthSource::target();
  EXPECT_EQ(round_trip(t), t);
  EXPECT_NE(t.to_json().find("\"currentReplicas\":null"), std::string::npos);
}

TEST(SdkTypes, TopologyFromJsonRefusesUnsafeGaps) {
  const auto read = [](const json::Value& v) { (void)Topology::from_json(v); };
  EXPECT_EQ(error_of(R"({"quorumFloor": 1, "replicasPath": "spec.replicas", "health": {"source": "target"}})", read),
            "topology: field 'scalable' must be present (a boolean)");
  EXPECT_EQ(error_of(R"({"scalable": true, "quorumFloor": 1, "replicasPath": "spec.replicas",
                         "health": {"source": "elsewhere"}})",
                     read),
            "topology.health: source must be \"object\" or \"target\", got \"elsewhere\"");
  EXPECT_EQ(
      error_of(R"({"scalable": true, "quorumFloor": "2", "replicasPath": "x", "health": {"source": "target"}})", read),
      "topology: field 'quorumFloor' must be an integer");
  EXPECT_EQ(error_of(R"({"scalable": true, "quorumFloor": 1, "replicasPath": "spec.replicas",
                         "health": {"source": "object", "apiGroup": "g", "version": "v", "kind": "K", "plural": "ks"}})",
                     read),
            "topology.health: field 'name' must be present (a string)");
}

TEST(SdkTypes, QueriesRoundTripAndLagUnitIsChecked) {
  Queries q;
  q.driver = {{"ReadConnections", "sum(x{namespace=\"${namespace}\"})"}};
  q.lag_query = "max(y)";
  q.lag_unit = "bytes";
  q.write_activity = "";
  EXPECT_EQ(round_trip(q), q);
  const auto read = [](const json::Value& v) { (void)Queries::from_json(v); };
  EXPECT_EQ(error_of(R"({"lag": {"query": "x", "unit": "minutes"}})", read),
            "queries.lag: unit must be \"seconds\" or \"bytes\", got \"minutes\"");
  EXPECT_EQ(error_of(R"({"driver": {"ReadConnections": 3}})", read),
            "queries.driver: field 'ReadConnections' must be a string");
}

// SDK 1.3's ready estimate crosses as "readyEstimate"; an answer without it (an adapter built
// against an older SDK) reads as no estimate, and an adapter that sets none answers as before.
TEST(SdkTypes, QueriesReadyEstimateIsOptional) {
  Queries q;
  q.driver = {{"ReadConnections", "sum(x{namespace=\"${namespace}\"})"}};
  q.write_activity = "sum(w{namespace=\"${namespace}\"})";
  EXPECT_EQ(q.to_json().find("readyEstimate"), std::string::npos) << q.to_json();
  const json::Document old = json::parse(R"({"driver": {}, "lag": {"query": ""}, "writeActivity": ""})", "old");
  EXPECT_EQ(Queries::from_json(old).ready_estimate, "");
  q.ready_estimate = "88 + 11 * sum(s{namespace=\"${namespace}\"}) / 1073741824";
  EXPECT_NE(q.to_json().find("\"readyEstimate\":"), std::string::npos) << q.to_json();
  EXPECT_EQ(round_trip(q), q);
  q.grouped = GroupedQueries{{{"cluster", "${name}"}}, {}, "", ""};
  const json::Document written = json::parse(q.to_json(), "written");
  EXPECT_FALSE(written["grouped"].HasMember("readyEstimate")) << q.to_json();
  q.grouped_ready_estimate = "60 + sum by (cluster)(s{namespace=\"${namespace}\"})";
  const json::Document with_grouped = json::parse(q.to_json(), "written");
  EXPECT_TRUE(with_grouped["grouped"].HasMember("readyEstimate")) << q.to_json();
  EXPECT_EQ(round_trip(q), q);
  const auto read = [](const json::Value& v) { (void)Queries::from_json(v); };
  EXPECT_EQ(error_of(R"({"readyEstimate": 90})", read), "queries: field 'readyEstimate' must be a string");
}

TEST(SdkTypes, QueryRequestRoundTrips) {
  QueryRequest r{"tenant-a", "db", "postgres-db", "apps.cozystack.io", "Postgres", {"ReadConnections"}};
  EXPECT_EQ(round_trip(r), r);
  const auto read = [](const json::Value& v) { (void)QueryRequest::from_json(v); };
  EXPECT_EQ(error_of(R"({"name": "db"})", read), "queries input: field 'namespace' must be present (a string)");
  EXPECT_EQ(error_of(R"({"namespace": "a", "name": "db", "metricTypes": [1]})", read),
            "queries input: field 'metricTypes' must be an array of strings");
}

TEST(SdkTypes, SamplesAndInstantQueryRoundTrip) {
  Samples s{{{{{"pod", "db-2"}, {"__name__", "x"}}, 420.5}, {{}, -1}}};
  EXPECT_EQ(round_trip(s), s);
  InstantQuery q{"up", "tenant-a", std::nullopt, 2.5};
  EXPECT_EQ(round_trip(q), q);
  q.monitoring_namespace = "tenant-root";
  EXPECT_EQ(round_trip(q), q);
  const auto read = [](const json::Value& v) { (void)InstantQuery::from_json(v); };
  EXPECT_EQ(error_of(R"({"query": "up", "timeoutSeconds": 0})", read),
            "instant_query input: timeoutSeconds must be a positive number");
  EXPECT_EQ(error_of(R"({"query": ""})", read), "instant_query input: query is empty");
}

TEST(SdkTypes, VerdictRoundTripsEachKind) {
  for (const Verdict& v : {Verdict::pass(), Verdict::clamp(3, "BackupWindow", "m"), Verdict::freeze("R", "m")}) {
    EXPECT_EQ(round_trip(v), v);
  }
  const auto read = [](const json::Value& v) { (void)Verdict::from_json(v); };
  EXPECT_EQ(error_of(R"({"verdict": "maybe"})", read),
            "verdict: must be \"pass\", \"clamp\" or \"freeze\", got \"maybe\"");
  EXPECT_EQ(error_of(R"({"verdict": "clamp", "reason": "x"})", read),
            "verdict: field 'replicas' must be present (an integer)");
}

TEST(SdkTypes, GateRequestKeepsViewsIntoTheDocument) {
  const json::Document doc = json::parse(
      R"({"now": 10000, "dha": {"namespace": "tenant-a", "name": "db"}, "spec": {"minReplicas": 2},
          "observation": {}, "state": {}, "proposal": {"kind": "Scale", "currentReplicas": 3, "replicas": 4}})",
      "in");
  const GateRequest r = GateRequest::from_json(doc);
  EXPECT_EQ(r.now, 10000);
  EXPECT_EQ(r.dha, (DhaRef{"tenant-a", "db"}));
  ASSERT_NE(r.spec, nullptr);
  EXPECT_EQ(values::read_int(*r.spec, "minReplicas", 0), 2);
  EXPECT_EQ(r.proposal, (Proposal{"Scale", 3, 4}));
  const json::Document again = json::parse(r.to_json(), "again");
  EXPECT_EQ(GateRequest::from_json(again).proposal, r.proposal);
}

TEST(SdkTypes, ActuatorPlanRoundTripsAndChecksEnums) {
  ActuatorPlan plan;
  plan.requests.emplace_back("scale", "merge", R"({"spec": {"replicas": 4}})");
  const json::Document doc = json::parse(plan.to_json(), "plan");
  const ActuatorPlan back = ActuatorPlan::from_json(doc);
  ASSERT_EQ(back.requests.size(), 1u);
  EXPECT_EQ(back.requests[0].subresource, "scale");
  EXPECT_EQ(json::stringify(back.requests[0].body), R"({"spec":{"replicas":4}})");
  const auto read = [](const json::Value& v) { (void)ActuatorPlan::from_json(v); };
  EXPECT_EQ(error_of(R"({"requests": [{"subresource": "exec", "body": {}}]})", read),
            "actuator plan request: subresource must be \"\", \"scale\" or \"status\", got \"exec\"");
  EXPECT_EQ(error_of(R"({"requests": [{"patchType": "strategic", "body": {}}]})", read),
            "actuator plan request: patchType must be \"merge\" or \"json\", got \"strategic\"");
  // The body's shape follows the patch type: a JSON patch is a list of operations.
  EXPECT_EQ(error_of(R"({"requests": [{"patchType": "json", "body": {"spec": {"replicas": 4}}}]})", read),
            "actuator plan request: field 'body' must be an array of operations (patchType json)");
  EXPECT_EQ(error_of(R"({"requests": [{"patchType": "merge", "body": [{"op": "remove", "path": "/spec"}]}]})", read),
            "actuator plan request: field 'body' must be an object (patchType merge)");
  const json::Document ops = json::parse(
      R"({"requests": [{"patchType": "json", "body": [{"op": "replace", "path": "/spec/replicas", "value": 4}]}]})",
      "ops");
  EXPECT_EQ(ActuatorPlan::from_json(ops).requests[0].patch_type, "json");
}

TEST(SdkTypes, ActuatorRequestNeedsDesiredReplicasToScale) {
  const auto read = [](const json::Value& v) { (void)ActuatorRequest::from_json(v); };
  EXPECT_EQ(error_of(R"({"action": "scale", "dha": {"namespace": "a", "name": "b"}, "target": {}})", read),
            "actuator input: field 'desiredReplicas' must be present (an integer) for action \"scale\"");
  const json::Document doc = json::parse(
      R"({"action": "release", "dha": {"namespace": "a", "name": "b"}, "target": {"kind": "X"}, "currentReplicas": null})",
      "in");
  const ActuatorRequest r = ActuatorRequest::from_json(doc);
  EXPECT_EQ(r.action, ActuatorRequest::Action::kRelease);
  EXPECT_FALSE(r.current_replicas.has_value());
}

TEST(SdkTypes, TargetsRoundTrip) {
  const std::vector<TargetKind> targets{
      {"apps.cozystack.io", "v1alpha1", "Postgres", "postgreses", "builtin.merge-patch"},
      {"postgresql.cnpg.io", "v1", "Cluster", "clusters", "builtin.scale"}};
  const json::Document doc = json::parse(targets_to_json(targets), "targets");
  EXPECT_EQ(targets_from_json(doc), targets);
}

}  // namespace
}  // namespace dha::sdk
