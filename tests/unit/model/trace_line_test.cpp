// The gate trace as one line per gate in status (lastDecision.gates), and the old shape (trace
// objects) a status written before it still has.

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "dha/model/input_error.hpp"
#include "dha/model/status.hpp"
#include "dha/model/trace_line.hpp"

namespace dha::model {
namespace {

rapidjson::Document json(const char* text) {
  rapidjson::Document doc;
  doc.Parse(text);
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

DhaStatus with_trace(std::vector<TraceEntry> trace) {
  DhaStatus s;
  s.last_decision = LastDecision{1700000060, DecisionKind::Freeze, 5, 4, "ReplicationLag", "lag", std::move(trace)};
  return s;
}

DhaStatus written_and_read(const DhaStatus& s, rapidjson::Document& doc) {
  static_cast<rapidjson::Value&>(doc) = status_to_json(s, doc.GetAllocator());
  return parse_status(doc);
}

TEST(TraceLine, SaysGateCountsReasonAndMessage) {
  EXPECT_EQ(trace_line({"LagBrake", 5, 4, "ReplicationLag", "replication lag above threshold (60s > 30s)"}),
            "LagBrake: 5 -> 4, ReplicationLag: replication lag above threshold (60s > 30s)");
  EXPECT_EQ(trace_line({"Bounds", 3, 3, "Pass", ""}), "Bounds: 3 -> 3, Pass");
  EXPECT_EQ(trace_line({"Plugin", -1, 2, "", "no reason given"}), "Plugin: -1 -> 2: no reason given");
  EXPECT_EQ(trace_line({"Plugin", 2, 2, "", ""}), "Plugin: 2 -> 2");
}

TEST(TraceLine, ReadsBackAsTheEntryItCameFrom) {
  for (const TraceEntry& e : std::vector<TraceEntry>{
           {"LagBrake", 5, 4, "ReplicationLag", "replication lag 60s > 30s: with writes, braking"},
           {"FailSafe", 5, 5, "Pass", "raw recommendation 5 from ReadConnections 116.667/100, per read replica"},
           {"StepLimit", INT32_MIN, INT32_MAX, "Stepped", ""},
           {"Plugin", 2, 2, "", "a message, with a comma: and a colon"},
           {"Plugin", 2, 2, "Odd, Reason", "m"},
           {"", 0, 0, "", ""}}) {
    SCOPED_TRACE(trace_line(e));
    ASSERT_TRUE(fits_trace_lines({e}));
    const auto back = parse_trace_line(trace_line(e));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, e);
  }
}

TEST(TraceLine, RefusesWhatIsNotALine) {
  for (const char* line : {"", "LagBrake", "LagBrake: five -> 4", "LagBrake: 5 ->", "LagBrake: 5 -> 4 extra",
                           "LagBrake: 5 -> 4, ", "LagBrake: 5 -> 4: ", "LagBrake: 5 -> 4, : m"})
    EXPECT_FALSE(parse_trace_line(line)) << line;
}

TEST(StatusGates, TheTraceIsWrittenOneLinePerGateAndReadBack) {
  const DhaStatus s = with_trace({{"FailSafe", 5, 5, "Pass", "raw recommendation 5"},
                                  {"LagBrake", 5, 4, "ReplicationLag", "replication lag above threshold (60s > 30s)"}});
  rapidjson::Document doc;
  EXPECT_EQ(written_and_read(s, doc), s);
  const auto& ld = doc["lastDecision"];
  EXPECT_FALSE(ld.HasMember("trace"));
  ASSERT_TRUE(ld["gates"].IsArray());
  ASSERT_EQ(ld["gates"].Size(), 2u);
  EXPECT_STREQ(ld["gates"][0].GetString(), "FailSafe: 5 -> 5, Pass: raw recommendation 5");
  EXPECT_STREQ(ld["gates"][1].GetString(),
               "LagBrake: 5 -> 4, ReplicationLag: replication lag above threshold (60s > 30s)");
}

// What the version before the gates lines wrote: the trace as objects. It is read as it was.
TEST(StatusGates, AStatusWithTheOldTraceObjectsIsStillRead) {
  const DhaStatus s = parse_status(json(R"j({"currentReplicas":4,"desiredReplicas":4,
    "recommendations":[{"time":"2026-12-01T12:23:32Z","replicas":3},{"time":"2026-12-01T12:23:33Z","replicas":5},
                       {"time":"2026-12-01T12:23:34Z","replicas":5}],
    "lastDecision":{"time":"2026-12-01T12:23:35Z","kind":"Freeze","rawDesiredReplicas":5,"desiredReplicas":4,
      "reason":"ReplicationLag","message":"replication lag above threshold with active writes",
      "trace":[{"gate":"FailSafe","in":5,"out":5,"reason":"Pass","message":"raw recommendation 5"},
               {"gate":"LagBrake","in":5,"out":4,"reason":"ReplicationLag","message":"lag (60s > 30s)"}]}})j"));
  ASSERT_TRUE(s.last_decision);
  EXPECT_EQ(s.last_decision->trace, (std::vector<TraceEntry>{{"FailSafe", 5, 5, "Pass", "raw recommendation 5"},
                                                             {"LagBrake", 5, 4, "ReplicationLag", "lag (60s > 30s)"}}));
  EXPECT_EQ(s.current_replicas, 4);
  EXPECT_EQ(s.state.recommendations.size(), 3u);
  // Written again, it takes the new shape and reads back the same.
  rapidjson::Document doc;
  EXPECT_EQ(written_and_read(s, doc), s);
  EXPECT_TRUE(doc["lastDecision"].HasMember("gates"));
}

TEST(StatusGates, ANameTheLinesCannotHoldKeepsTheObjects) {
  const DhaStatus s = with_trace({{"vendor:gate", 5, 4, "Held", "m"}, {"Bounds", 4, 4, "Pass", ""}});
  rapidjson::Document doc;
  EXPECT_EQ(written_and_read(s, doc), s);
  EXPECT_FALSE(doc["lastDecision"].HasMember("gates"));
  EXPECT_TRUE(doc["lastDecision"]["trace"].IsArray());
}

TEST(StatusGates, ALineThatDoesNotParseNamesTheField) {
  try {
    parse_status(json(
        R"({"lastDecision":{"time":"2026-12-01T12:23:35Z","kind":"NoChange","gates":["Bounds: 3 -> 3, Pass","oops"]}})"));
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "status.lastDecision.gates[1]: not \"<gate>: <in> -> <out>, <reason>: <message>\" (\"oops\")");
  }
}

// kubectl prints <unknown> in a printer column whose field is missing; 0 would read as a count.
TEST(StatusCounts, AnUnknownCountIsLeftOutAndReadsBackUnknown) {
  DhaStatus s;
  s.observed_generation = 2;
  rapidjson::Document doc;
  const DhaStatus back = written_and_read(s, doc);
  EXPECT_FALSE(doc.HasMember("currentReplicas"));
  EXPECT_FALSE(doc.HasMember("desiredReplicas"));
  EXPECT_FALSE(back.current_replicas);
  EXPECT_FALSE(back.desired_replicas);
  s.current_replicas = 0;
  s.desired_replicas = 0;
  EXPECT_EQ(written_and_read(s, doc), s);
  EXPECT_EQ(doc["currentReplicas"].GetInt(), 0);
}

}  // namespace
}  // namespace dha::model
