// Observation and decision-state parsing, and the DHA status round trip (RFC3339 times).

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

#include "dha/model/decision_state.hpp"
#include "dha/model/input_error.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/status.hpp"

namespace dha::model {
namespace {

rapidjson::Document json(const char* text) {
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseNanAndInfFlag>(text);
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

std::string expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Observation, DefaultsAndNulls) {
  const auto o = parse_observation(json(R"({"currentReplicas":3,"metrics":[{"type":"ReadConnections","value":null},
      {"type":"ReadCPUUtilization"}],"lagSeconds":null,"quotaMaxReplicas":null})"));
  EXPECT_EQ(o.current_replicas, 3);
  EXPECT_EQ(o.available_replicas, 3);
  EXPECT_EQ(o.primary_count, 1);
  EXPECT_EQ(o.quorum_floor, 1);
  EXPECT_TRUE(o.operational);
  EXPECT_TRUE(o.health_known);
  EXPECT_FALSE(o.metrics[0].value);
  EXPECT_FALSE(o.metrics[1].value);
  EXPECT_FALSE(o.lag_seconds);
  EXPECT_FALSE(o.write_rate);
  EXPECT_FALSE(o.quota_max_replicas);
  EXPECT_TRUE(o.converged());
}

TEST(Observation, NonFiniteValuesAsNumbersOrPromqlStrings) {
  const auto o = parse_observation(json(R"({"currentReplicas":3,"metrics":[{"type":"A","value":NaN},
      {"type":"B","value":"+Inf"},{"type":"C","value":-Infinity},{"type":"D","value":"NaN"}]})"));
  EXPECT_TRUE(std::isnan(*o.metrics[0].value));
  EXPECT_TRUE(std::isinf(*o.metrics[1].value));
  EXPECT_LT(*o.metrics[2].value, 0);
  EXPECT_TRUE(std::isnan(*o.metrics[3].value));
}

TEST(Observation, RoundTripsThroughJson) {
  const auto o = parse_observation(json(R"({"currentReplicas":4,"primaryCount":1,"quorumFloor":2,"healthKnown":false,
      "operational":false,"availableReplicas":2,"metrics":[{"type":"ReadConnections","value":"+Inf"}],
      "lagSeconds":3.5,"writeRate":0,"quotaMaxReplicas":7})"));
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = observation_to_json(o, doc.GetAllocator());
  const auto again = parse_observation(doc);
  EXPECT_EQ(again.quorum_floor, 2);
  EXPECT_FALSE(again.health_known);
  EXPECT_FALSE(again.operational);
  EXPECT_EQ(again.available_replicas, 2);
  EXPECT_TRUE(std::isinf(*again.metrics[0].value));
  EXPECT_EQ(again.lag_seconds, 3.5);
  EXPECT_EQ(again.write_rate, 0);
  EXPECT_EQ(again.quota_max_replicas, 7);
}

TEST(Observation, ErrorsNameTheField) {
  EXPECT_EQ(expect_error([] { parse_observation(json("{}")); }), "observation.currentReplicas: required");
  EXPECT_EQ(expect_error([] { parse_observation(json(R"({"currentReplicas":-1})")); }),
            "observation.currentReplicas: out of range [0, 2147483647]");
  EXPECT_EQ(expect_error([] { parse_observation(json(R"({"currentReplicas":3,"metrics":{}})")); }),
            "observation.metrics: must be an array");
  EXPECT_EQ(expect_error([] { parse_observation(json(R"({"currentReplicas":3,"metrics":[{"value":1}]})")); }),
            "observation.metrics[0].type: required");
  EXPECT_EQ(
      expect_error([] { parse_observation(json(R"({"currentReplicas":3,"metrics":[{"type":"X","value":"lots"}]})")); }),
      "observation.metrics[0].value: must be a number");
  EXPECT_EQ(expect_error([] { parse_observation(json(R"({"currentReplicas":3,"operational":"yes"})")); }),
            "observation.operational: must be true or false");
}

TEST(DecisionStateJson, RoundTrips) {
  DecisionState s;
  s.recommendations = {{100, 3}, {160, 4}};
  s.in_flight_since = 160;
  s.last_applied_replicas = 4;
  s.last_converged_replicas = 3;
  s.backoff = Backoff{5, 2000, 2};
  s.last_scale_time = 160;
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = decision_state_to_json(s, doc.GetAllocator());
  EXPECT_EQ(parse_decision_state(doc), s);
  EXPECT_EQ(parse_decision_state(json("{}")), DecisionState{});
}

TEST(DecisionStateJson, ErrorsNameTheField) {
  EXPECT_EQ(expect_error([] { parse_decision_state(json(R"({"recommendations":[{"time":1}]})")); }),
            "state.recommendations[0].replicas: required");
  EXPECT_EQ(expect_error([] { parse_decision_state(json(R"({"backoff":{"replicas":3}})")); }),
            "state.backoff.until: required");
  EXPECT_EQ(expect_error([] { parse_decision_state(json(R"({"inFlightSince":"yesterday"})")); }),
            "state.inFlightSince: must be an integer");
}

TEST(Status, RoundTripsThroughJsonWithRfc3339Times) {
  DhaStatus s;
  s.observed_generation = 3;
  s.current_replicas = 4;
  s.desired_replicas = 5;
  s.state.recommendations = {{1700000000, 4}, {1700000060, 5}};
  s.state.in_flight_since = 1700000060;
  s.state.last_scale_time = 1700000060;
  s.state.last_applied_replicas = 5;
  s.state.last_converged_replicas = 4;
  s.state.backoff = Backoff{6, 1700003600, 2};
  s.current_metrics = {{"ReadConnections", "210"}, {"ReadCPUUtilization", "250m"}};
  s.last_decision = LastDecision{1700000060,
                                 DecisionKind::Scale,
                                 5,
                                 5,
                                 "Ready",
                                 "scale 4 -> 5",
                                 {{"FailSafe", 5, 5, "Pass", "ok"}, {"Bounds", 5, 5, "Pass", "within bounds"}}};
  s.conditions = {{"AbleToScale", "True", "Ready", "ready to scale", 1700000000, 3}};
  s.target_display = "Postgres/db";
  s.metrics_display = "210/150 (ReadConnections)";
  s.summary = "scale 4 -> 5";

  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = status_to_json(s, doc.GetAllocator());
  EXPECT_STREQ(doc["metricsDisplay"].GetString(), "210/150 (ReadConnections)");
  EXPECT_STREQ(doc["inFlightSince"].GetString(), "2023-11-14T22:14:20Z");
  EXPECT_STREQ(doc["backoff"]["until"].GetString(), "2023-11-14T23:13:20Z");
  EXPECT_STREQ(doc["recommendations"][0]["time"].GetString(), "2023-11-14T22:13:20Z");
  EXPECT_STREQ(doc["lastDecision"]["kind"].GetString(), "Scale");

  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  doc.Accept(w);
  EXPECT_EQ(parse_status(json(buf.GetString())), s);
}

TEST(Status, AbsentOptionalFieldsStayAbsent) {
  const DhaStatus s = parse_status(json(R"({"currentReplicas":3,"desiredReplicas":3})"));
  EXPECT_FALSE(s.state.in_flight_since);
  EXPECT_FALSE(s.state.backoff);
  EXPECT_FALSE(s.last_decision);
  rapidjson::Document doc;
  static_cast<rapidjson::Value&>(doc) = status_to_json(s, doc.GetAllocator());
  EXPECT_FALSE(doc.HasMember("inFlightSince"));
  EXPECT_FALSE(doc.HasMember("backoff"));
  EXPECT_FALSE(doc.HasMember("lastAppliedReplicas"));
  EXPECT_FALSE(doc.HasMember("summary"));
}

TEST(Status, ErrorsNameTheField) {
  EXPECT_EQ(expect_error([] { parse_status(json(R"({"backoff":{"replicas":3,"until":"soon"}})")); }),
            "status.backoff.until: not an RFC3339 time (\"soon\")");
  EXPECT_EQ(expect_error([] { parse_status(json(R"({"recommendations":[{"replicas":3}]})")); }),
            "status.recommendations[0].time: required");
  EXPECT_EQ(
      expect_error([] { parse_status(json(R"({"lastDecision":{"time":"2023-11-14T22:13:20Z","kind":"Panic"}})")); }),
      "status.lastDecision.kind: must be Scale, NoChange, Freeze or Rollback");
}

TEST(Conditions, TransitionTimeChangesOnlyWhenStatusFlips) {
  std::vector<Condition> conds;
  set_condition(conds, {"AbleToScale", "True", "Ready", "ready to scale", 0, 1}, 100);
  EXPECT_EQ(conds[0].last_transition_time, 100);
  set_condition(conds, {"AbleToScale", "True", "Ready", "ready to scale", 0, 2}, 200);
  EXPECT_EQ(conds[0].last_transition_time, 100);
  EXPECT_EQ(conds[0].observed_generation, 2);
  set_condition(conds, {"AbleToScale", "False", "MetricUnavailable", "blind", 0, 2}, 300);
  EXPECT_EQ(conds[0].last_transition_time, 300);
  EXPECT_EQ(conds[0].reason, "MetricUnavailable");
  set_condition(conds, {"AbleToScale", "False", "NotOperational", "down", 0, 2}, 400);
  EXPECT_EQ(conds[0].last_transition_time, 300);  // reason changed, status did not
  set_condition(conds, {"ScalingLimited", "False", "Ready", "within limits", 0, 2}, 400);
  EXPECT_EQ(conds.size(), 2u);
  EXPECT_NE(find_condition(conds, "ScalingLimited"), nullptr);
  EXPECT_EQ(find_condition(conds, "ScalingActive"), nullptr);
}

}  // namespace
}  // namespace dha::model
