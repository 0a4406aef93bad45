#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "dha/model/input_error.hpp"
#include "dha/model/spec.hpp"

namespace dha::model {
namespace {

DhaSpec parse(const std::string& json, bool require_target = true) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  return parse_spec(doc, SpecParseOptions{.require_target_ref = require_target});
}

constexpr const char* kMinimal = R"({"targetRef":{"kind":"Postgres","name":"db"},"minReplicas":2,"maxReplicas":6,
    "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}]})";

TEST(Spec, AppliesControllerDefaults) {
  const DhaSpec s = parse(kMinimal);
  ASSERT_TRUE(s.target_ref);
  EXPECT_EQ(s.target_ref->api_group, "apps.cozystack.io");
  EXPECT_EQ(s.behavior.scale_up.stabilization_window_seconds, 300);
  EXPECT_EQ(s.behavior.scale_up.step, 1);
  EXPECT_EQ(s.behavior.scale_down.stabilization_window_seconds, 1800);
  EXPECT_EQ(s.behavior.scale_down.step, 1);
  EXPECT_EQ(s.behavior.convergence_deadline_seconds, 900);
  EXPECT_EQ(s.behavior.tolerance, 0);
  EXPECT_FALSE(s.behavior.immediate_first_decision);
  EXPECT_TRUE(s.constraints.respect_quorum);
  EXPECT_EQ(s.constraints.max_replication_lag_seconds, 30);
  EXPECT_FALSE(s.dry_run);
  EXPECT_EQ(s.longest_window_seconds(), 1800);
  EXPECT_DOUBLE_EQ(s.metrics[0].target_in_query_unit(), 150);
}

TEST(Spec, ReadsEveryField) {
  const DhaSpec s = parse(R"({"targetRef":{"apiGroup":"postgresql.cnpg.io","kind":"Cluster","name":"pg"},
      "minReplicas":3,"maxReplicas":9,
      "metrics":[{"type":"ReadCPUUtilization","target":{"averageValue":"250m"}},
                 {"type":"ReadConnections","target":{"averageValue":200}}],
      "behavior":{"scaleUp":{"stabilizationWindowSeconds":0,"step":2},
                  "scaleDown":{"stabilizationWindowSeconds":600,"step":3},
                  "convergenceDeadlineSeconds":86400,"tolerance":0.1,"immediateFirstDecision":true},
      "constraints":{"respectQuorum":false,"maxReplicationLagSeconds":5},"dryRun":true})");
  EXPECT_EQ(s.target_ref->api_group, "postgresql.cnpg.io");
  EXPECT_EQ(s.min_replicas, 3);
  EXPECT_EQ(s.max_replicas, 9);
  EXPECT_EQ(s.metrics[0].type, MetricType::ReadCPUUtilization);
  EXPECT_DOUBLE_EQ(s.metrics[0].target_in_query_unit(), 250);  // millicores
  EXPECT_DOUBLE_EQ(s.metrics[1].target_in_query_unit(), 200);  // int-or-string: a JSON integer
  EXPECT_EQ(s.behavior.scale_up.stabilization_window_seconds, 0);
  EXPECT_EQ(s.behavior.scale_up.step, 2);
  EXPECT_EQ(s.behavior.scale_down.stabilization_window_seconds, 600);
  EXPECT_EQ(s.behavior.scale_down.step, 3);
  EXPECT_EQ(s.behavior.convergence_deadline_seconds, 86400);
  EXPECT_DOUBLE_EQ(s.behavior.tolerance, 0.1);
  EXPECT_TRUE(s.behavior.immediate_first_decision);
  EXPECT_FALSE(s.constraints.respect_quorum);
  EXPECT_EQ(s.constraints.max_replication_lag_seconds, 5);
  EXPECT_TRUE(s.dry_run);
  EXPECT_EQ(s.longest_window_seconds(), 600);
}

// HPA's way for CPU: a percentage of the read replicas' CPU requests. The observed value comes
// in percent too, so the proportional formula compares like with like.
TEST(Spec, ReadsAverageUtilizationAsAPercentage) {
  const DhaSpec s = parse(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadCPUUtilization","target":{"averageUtilization":70}}]})",
                          false);
  ASSERT_TRUE(s.metrics[0].is_utilization());
  EXPECT_EQ(*s.metrics[0].average_utilization, 70);
  EXPECT_DOUBLE_EQ(s.metrics[0].target_in_query_unit(), 70);
  EXPECT_EQ(s.metrics[0].target_text(), "70%");
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = spec_to_json(s, doc.GetAllocator());
  EXPECT_EQ(doc["metrics"][0]["target"]["averageUtilization"].GetInt(), 70);
  EXPECT_FALSE(doc["metrics"][0]["target"].HasMember("averageValue"));
  const DhaSpec again = parse_spec(doc, SpecParseOptions{.require_target_ref = false});
  EXPECT_EQ(again.metrics[0].average_utilization, 70);
}

TEST(Spec, EmptyApiGroupMeansDefault) {
  const DhaSpec s = parse(R"({"targetRef":{"apiGroup":"","kind":"Redis","name":"r"},"minReplicas":2,
      "maxReplicas":2,"metrics":[{"type":"ReadConnections","target":{"averageValue":"1"}}]})");
  EXPECT_EQ(s.target_ref->api_group, "apps.cozystack.io");
}

TEST(Spec, NonPositiveTargetIsNotBadInput) {
  const DhaSpec s = parse(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"-1"}}]})",
                          false);
  EXPECT_LT(s.metrics[0].target_in_query_unit(), 0);
}

// Found by tests/fuzz/dha_spec: the target was read up to the first NUL, so "150\u0000junk"
// was accepted as 150.
TEST(Spec, TargetWithNulIsNotAQuantity) {
  try {
    parse(R"({"minReplicas":2,"maxReplicas":3,
              "metrics":[{"type":"ReadConnections","target":{"averageValue":"150\u0000junk"}}]})",
          false);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "spec.metrics[0].target.averageValue");
  }
}

// Found by tests/fuzz/dha_spec: spec_to_json wrote strings up to their first NUL, so a name
// with "\u0000" changed on the way to a plugin gate.
TEST(Spec, WritesStringsWhole) {
  const DhaSpec s = parse(R"({"targetRef":{"kind":"Postgres","name":"db\u0000x"},"minReplicas":2,"maxReplicas":6,
    "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}]})");
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = spec_to_json(s, doc.GetAllocator());
  EXPECT_EQ(doc["targetRef"]["name"].GetStringLength(), 4u);
}

TEST(Spec, RoundTripsThroughJsonWithDefaults) {
  const DhaSpec s = parse(kMinimal);
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = spec_to_json(s, doc.GetAllocator());
  const DhaSpec again = parse_spec(doc);
  EXPECT_EQ(again.behavior.scale_down.stabilization_window_seconds, 1800);
  EXPECT_EQ(again.metrics[0].target.text, "150");
  EXPECT_EQ(again.target_ref->name, "db");
}

struct BadRow {
  const char* name;
  const char* json;
  const char* error;
};

class SpecErrors : public ::testing::TestWithParam<BadRow> {};

TEST_P(SpecErrors, NameTheField) {
  rapidjson::Document doc;
  doc.Parse(GetParam().json);
  ASSERT_FALSE(doc.HasParseError()) << GetParam().json;
  try {
    parse_spec(doc);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), GetParam().error);
  }
}

#define M R"("metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}])"
#define T R"("targetRef":{"kind":"Postgres","name":"db"})"

INSTANTIATE_TEST_SUITE_P(
    Table, SpecErrors,
    ::testing::Values(
        BadRow{"not_object", "[]", "spec: must be an object"},
        BadRow{"no_target", "{\"minReplicas\":2,\"maxReplicas\":3," M "}", "spec.targetRef: required"},
        BadRow{"target_no_name", "{\"targetRef\":{\"kind\":\"Postgres\"},\"minReplicas\":2,\"maxReplicas\":3," M "}",
               "spec.targetRef.name: required"},
        BadRow{"no_min", "{" T ",\"maxReplicas\":3," M "}", "spec.minReplicas: required"},
        BadRow{"min_too_small", "{" T ",\"minReplicas\":1,\"maxReplicas\":3," M "}",
               "spec.minReplicas: must be at least 2 (2 = one primary and one read replica; the count is the total "
               "number of instances, the primary included)"},
        BadRow{"min_not_integer", "{" T ",\"minReplicas\":2.5,\"maxReplicas\":3," M "}",
               "spec.minReplicas: must be an integer"},
        BadRow{"min_string", "{" T ",\"minReplicas\":\"2\",\"maxReplicas\":3," M "}",
               "spec.minReplicas: must be an integer"},
        BadRow{"max_over_int32", "{" T ",\"minReplicas\":2,\"maxReplicas\":3000000000," M "}",
               "spec.maxReplicas: out of range [2, 2147483647]"},
        BadRow{"max_below_min", "{" T ",\"minReplicas\":4,\"maxReplicas\":3," M "}",
               "spec.maxReplicas: maxReplicas must be greater than or equal to minReplicas"},
        BadRow{"no_metrics", "{" T ",\"minReplicas\":2,\"maxReplicas\":3}", "spec.metrics: required"},
        BadRow{"empty_metrics", "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[]}",
               "spec.metrics: must have at least 1 item"},
        BadRow{"unknown_type",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"Writes\",\"target\":{"
               "\"averageValue\":\"1\"}}]}",
               "spec.metrics[0].type: unsupported value \"Writes\" (ReadConnections or ReadCPUUtilization)"},
        BadRow{"no_target_value",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadConnections\",\"target\":{}}]}",
               "spec.metrics[0].target.averageValue: required (or averageUtilization for ReadCPUUtilization)"},
        BadRow{"both_targets",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadCPUUtilization\",\"target\":"
               "{\"averageValue\":\"250m\",\"averageUtilization\":70}}]}",
               "spec.metrics[0].target: set exactly one of averageValue and averageUtilization"},
        BadRow{"utilization_for_connections",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadConnections\",\"target\":"
               "{\"averageUtilization\":70}}]}",
               "spec.metrics[0].target.averageUtilization: averageUtilization is a percentage of CPU requests and "
               "applies to ReadCPUUtilization only"},
        BadRow{"zero_utilization",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadCPUUtilization\",\"target\":"
               "{\"averageUtilization\":0}}]}",
               "spec.metrics[0].target.averageUtilization: out of range [1, 2147483647]"},
        BadRow{"bad_quantity",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadConnections\",\"target\":{"
               "\"averageValue\":\"lots\"}}]}",
               "spec.metrics[0].target.averageValue: not a quantity (\"lots\": must start with a number)"},
        BadRow{"second_metric_bad_quantity",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadConnections\",\"target\":{"
               "\"averageValue\":\"1\"}},"
               "{\"type\":\"ReadCPUUtilization\",\"target\":{\"averageValue\":\"2q\"}}]}",
               "spec.metrics[1].target.averageValue: not a quantity (\"2q\": unknown suffix \"q\")"},
        BadRow{"fractional_number_quantity",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3,\"metrics\":[{\"type\":\"ReadConnections\",\"target\":{"
               "\"averageValue\":1.5}}]}",
               "spec.metrics[0].target.averageValue: not a quantity (a number must be an integer; write fractions as "
               "a string)"},
        BadRow{"negative_window",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M
               ",\"behavior\":{\"scaleUp\":{\"stabilizationWindowSeconds\":-1}}}",
               "spec.behavior.scaleUp.stabilizationWindowSeconds: out of range [0, 2147483647]"},
        BadRow{"zero_step",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"behavior\":{\"scaleDown\":{\"step\":0}}}",
               "spec.behavior.scaleDown.step: out of range [1, 2147483647]"},
        BadRow{"deadline_zero",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"behavior\":{\"convergenceDeadlineSeconds\":0}}",
               "spec.behavior.convergenceDeadlineSeconds: out of range [1, 86400]"},
        BadRow{"deadline_over_a_day",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"behavior\":{\"convergenceDeadlineSeconds\":86401}}",
               "spec.behavior.convergenceDeadlineSeconds: out of range [1, 86400]"},
        BadRow{"tolerance_over_one",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"behavior\":{\"tolerance\":1.5}}",
               "spec.behavior.tolerance: must be a number in [0, 1]"},
        BadRow{"respect_quorum_string",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"constraints\":{\"respectQuorum\":\"no\"}}",
               "spec.constraints.respectQuorum: must be true or false"},
        BadRow{"negative_lag",
               "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"constraints\":{\"maxReplicationLagSeconds\":-1}}",
               "spec.constraints.maxReplicationLagSeconds: out of range [0, 2147483647]"},
        BadRow{"dry_run_number", "{" T ",\"minReplicas\":2,\"maxReplicas\":3," M ",\"dryRun\":1}",
               "spec.dryRun: must be true or false"}),
    [](const auto& info) { return std::string(info.param.name); });

#undef M
#undef T

}  // namespace
}  // namespace dha::model
