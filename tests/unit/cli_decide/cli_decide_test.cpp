// Runs the built db-autoscaler binary on the shipped examples and on bad input: the public
// interface of `decide` and `simulate`, exit codes included.

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/dha-cli-decide-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_TRUE(fs::exists(DHA_BINARY)) << "db-autoscaler binary missing at " << DHA_BINARY;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& content) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

  // Runs `db-autoscaler <args>` with stdin from `stdin_file` (or /dev/null).
  Result run(const std::string& args, const std::string& stdin_file = "/dev/null") {
    const fs::path out = dir_ / "out", err = dir_ / "err";
    const std::string cmd = std::string("'") + DHA_BINARY + "' " + args + " < '" + stdin_file + "' > '" + out.string() +
                            "' 2> '" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    Result r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  static std::string example(const std::string& rel) { return std::string(DHA_EXAMPLES_DIR) + "/" + rel; }

  fs::path dir_;
};

struct ExampleRow {
  const char* file;
  const char* kind;
  int desired;
  const char* reason;
};

class DecideExamples : public Cli, public ::testing::WithParamInterface<ExampleRow> {};

TEST_P(DecideExamples, ProduceTheDocumentedDecision) {
  const auto r = run("decide '" + example(std::string("decide/") + GetParam().file) + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_FALSE(d.HasParseError()) << r.out;
  EXPECT_STREQ(d["kind"].GetString(), GetParam().kind);
  EXPECT_EQ(d["desiredReplicas"].GetInt(), GetParam().desired);
  EXPECT_STREQ(d["reason"].GetString(), GetParam().reason);
}

INSTANTIATE_TEST_SUITE_P(Examples, DecideExamples,
                         ::testing::Values(ExampleRow{"scale-up.json", "Scale", 4, "Ready"},
                                           ExampleRow{"metric-unavailable.json", "Freeze", 4, "MetricUnavailable"},
                                           ExampleRow{"rollback.json", "Rollback", 4, "StuckScaling"},
                                           ExampleRow{"backoff-hold.json", "Freeze", 4, "StuckScaling"},
                                           ExampleRow{"lag-brake.json", "Freeze", 3, "ReplicationLag"},
                                           ExampleRow{"ownership-conflict.json", "NoChange", 2, "OwnershipConflict"},
                                           ExampleRow{"dry-run.json", "Scale", 4, "Ready"},
                                           ExampleRow{"not-converged.json", "Freeze", 4, "NotConverged"},
                                           ExampleRow{"adaptive-overload.json", "Scale", 5, "Ready"},
                                           ExampleRow{"adaptive-forecast.json", "Scale", 6, "Ready"}),
                         [](const auto& info) {
                           std::string n = info.param.file;
                           n = n.substr(0, n.find('.'));
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST_F(Cli, DecideOutputHasEveryDocumentedField) {
  const auto r = run("decide", example("decide/scale-up.json"));
  ASSERT_EQ(r.code, 0) << r.err;
  rapidjson::Document d;
  d.Parse(r.out.c_str());
  ASSERT_TRUE(d.IsObject());
  for (const char* key : {"kind", "reason", "message"}) EXPECT_TRUE(d[key].IsString()) << key;
  for (const char* key : {"desiredReplicas", "rawDesiredReplicas"}) EXPECT_TRUE(d[key].IsInt()) << key;
  for (const char* key : {"ableToScale", "limited"}) EXPECT_TRUE(d[key].IsBool()) << key;
  ASSERT_EQ(d["conditions"].Size(), 2u);
  EXPECT_STREQ(d["conditions"][0]["type"].GetString(), "AbleToScale");
  EXPECT_STREQ(d["conditions"][1]["type"].GetString(), "ScalingLimited");
  ASSERT_EQ(d["trace"].Size(), 11u);
  for (const auto& e : d["trace"].GetArray())
    for (const char* key : {"gate", "in", "out", "reason", "message"}) EXPECT_TRUE(e.HasMember(key)) << key;
  const auto& s = d["state"];
  for (const char* key :
       {"recommendations", "inFlightSince", "lastAppliedReplicas", "lastConvergedReplicas", "backoff", "lastScaleTime"})
    EXPECT_TRUE(s.HasMember(key)) << key;
  EXPECT_EQ(s["inFlightSince"].GetInt64(), 10000);
  EXPECT_EQ(s["lastAppliedReplicas"].GetInt(), 4);
}

TEST_F(Cli, DecideReadsStdinWithDashAndPrettyPrints) {
  const auto compact = run("decide -", example("decide/rollback.json"));
  const auto pretty = run("decide --pretty " + example("decide/rollback.json"));
  ASSERT_EQ(compact.code, 0);
  ASSERT_EQ(pretty.code, 0);
  EXPECT_NE(pretty.out.find("\n  \"kind\": \"Rollback\""), std::string::npos);
  rapidjson::Document a, b;
  a.Parse(compact.out.c_str());
  b.Parse(pretty.out.c_str());
  EXPECT_TRUE(a == b);
}

TEST_F(Cli, DecideOutputStateFeedsTheNextCall) {
  // Call decide twice, passing the first output's state into the second, as a caller would.
  const auto first = run("decide", example("decide/scale-up.json"));
  rapidjson::Document out;
  out.Parse(first.out.c_str());
  rapidjson::Document in;
  in.Parse(slurp(example("decide/scale-up.json")).c_str());
  in["now"].SetInt(10060);
  in["observation"]["availableReplicas"].SetInt(3);
  in["observation"]["currentReplicas"].SetInt(4);
  in["state"].CopyFrom(out["state"], in.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  in.Accept(w);
  const auto second = run("decide", write("second.json", buf.GetString()).string());
  ASSERT_EQ(second.code, 0) << second.err;
  rapidjson::Document d;
  d.Parse(second.out.c_str());
  EXPECT_STREQ(d["reason"].GetString(), "ScaleInFlight");
}

struct BadRow {
  const char* name;
  const char* input;
  const char* error;
};

class DecideBadInput : public Cli, public ::testing::WithParamInterface<BadRow> {};

TEST_P(DecideBadInput, ExitsTwoNamingTheField) {
  const auto r = run("decide " + write("in.json", GetParam().input).string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.err, std::string("db-autoscaler: ") + GetParam().error + "\n");
  EXPECT_TRUE(r.out.empty());
}

#define SPEC \
  R"("spec":{"minReplicas":2,"maxReplicas":6,"metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}]})"
#define OBS R"("observation":{"currentReplicas":3,"metrics":[{"type":"ReadConnections","value":420}]})"

INSTANTIATE_TEST_SUITE_P(
    Cases, DecideBadInput,
    ::testing::Values(
        BadRow{"empty", "", "input: not valid JSON at offset 0: The document is empty."},
        BadRow{"truncated", "{\"now\":", "input: not valid JSON at offset 7: Invalid value."},
        BadRow{"array", "[]", "input: must be an object"}, BadRow{"no_now", "{" SPEC "," OBS "}", "now: required"},
        BadRow{"now_fraction", "{\"now\":1.5," SPEC "," OBS "}", "now: must be an integer"},
        BadRow{"now_negative", "{\"now\":-1," SPEC "," OBS "}", "now: out of range [0, 253402300799]"},
        BadRow{"no_spec", "{\"now\":1," OBS "}", "spec: required"},
        BadRow{
            "bad_quantity",
            R"({"now":1,"spec":{"minReplicas":2,"maxReplicas":6,"metrics":[{"type":"ReadConnections","target":{"averageValue":"1.2.3"}}]},)" OBS
            "}",
            "spec.metrics[0].target.averageValue: not a quantity (\"1.2.3\": unknown suffix \".3\")"},
        BadRow{"no_observation", "{\"now\":1," SPEC "}", "observation: required"},
        BadRow{"no_current", "{\"now\":1," SPEC ",\"observation\":{}}", "observation.currentReplicas: required"},
        BadRow{"bad_state", "{\"now\":1," SPEC "," OBS ",\"state\":{\"backoff\":{\"replicas\":3}}}",
               "state.backoff.until: required"},
        BadRow{"bad_recommendation",
               "{\"now\":1," SPEC "," OBS ",\"state\":{\"recommendations\":[{\"time\":\"x\",\"replicas\":3}]}}",
               "state.recommendations[0].time: must be an integer"}),
    [](const auto& info) { return std::string(info.param.name); });

#undef SPEC
#undef OBS

TEST_F(Cli, DecideMissingFileIsBadInput) {
  const auto r = run("decide /nonexistent/input.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "db-autoscaler: decide: cannot read /nonexistent/input.json\n");
}

TEST_F(Cli, DecideNonPositiveTargetIsADecisionNotBadInput) {
  const auto r = run(
      "decide " +
      write(
          "in.json",
          R"({"now":1,"spec":{"minReplicas":2,"maxReplicas":6,"metrics":[{"type":"ReadConnections","target":{"averageValue":"0"}}]},"observation":{"currentReplicas":3}})")
          .string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"reason\":\"InvalidMetricTarget\""), std::string::npos);
}

class SimulateExamples : public Cli, public ::testing::WithParamInterface<const char*> {};

TEST_P(SimulateExamples, RunAndWriteJsonAndSvg) {
  const fs::path json = dir_ / "timeline.json", svg = dir_ / "plot.svg";
  const auto r = run("simulate --dha " + example("dha-postgres.yaml") + " --load " +
                     example(std::string("load/") + GetParam() + ".csv") + " --provision-seconds 180 --json " +
                     json.string() + " --svg " + svg.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("replica-seconds:"), std::string::npos);
  EXPECT_NE(r.out.find("seconds above target:"), std::string::npos);
  EXPECT_NE(r.out.find("scale actions:"), std::string::npos);
  EXPECT_NE(r.out.find("freezes by reason:"), std::string::npos);
  rapidjson::Document d;
  d.Parse(slurp(json).c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_GT(d["steps"].Size(), 100u);
  EXPECT_GT(d["summary"]["scaleActions"].GetInt(), 0);
  const std::string plot = slurp(svg);
  EXPECT_EQ(plot.rfind("<svg", 0), 0u);
  EXPECT_NE(plot.find("</svg>"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Traces, SimulateExamples,
                         ::testing::Values("diurnal", "spike", "slow-ramp-lag", "metric-outage"), [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST_F(Cli, SimulateShowsTheLagBrakeAndTheOutageFreeze) {
  auto r = run("simulate --summary-only --dha " + example("dha-postgres.yaml") + " --load " +
               example("load/slow-ramp-lag.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("ReplicationLag"), std::string::npos) << r.out;
  r = run("simulate --summary-only --dha " + example("dha-postgres.yaml") + " --load " +
          example("load/metric-outage.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("MetricUnavailable"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateAcceptsABareJsonSpec) {
  const auto dha = write("spec.json", R"({"minReplicas":2,"maxReplicas":4,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":100}}]})");
  const auto load = write("load.csv", "time,ReadConnections\n0,100\n600,500\n3600,500\n");
  const auto r = run("simulate --summary-only --interval 30 --initial-replicas 3 --dha " + dha.string() + " --load " +
                     load.string());
  ASSERT_EQ(r.code, 0) << r.err;
  // The first observation counts as a recommendation of the 3 replicas there are, as in the
  // operator: the quiet first 600 s are shorter than the down window, and the load then needs 4.
  EXPECT_NE(r.out.find("replicas range:         3..4"), std::string::npos) << r.out;
  // behavior.immediateFirstDecision opts out, as it does in the operator: the first decision removes one.
  const auto immediate = write("immediate.json", R"({"minReplicas":2,"maxReplicas":4,
      "behavior":{"policy":"Windowed","immediateFirstDecision":true},
      "metrics":[{"type":"ReadConnections","target":{"averageValue":100}}]})");
  const auto now = run("simulate --summary-only --interval 30 --initial-replicas 3 --dha " + immediate.string() +
                       " --load " + load.string());
  ASSERT_EQ(now.code, 0) << now.err;
  EXPECT_NE(now.out.find("replicas range:         2..4"), std::string::npos) << now.out;
}

class SimulateFamilies : public Cli, public ::testing::WithParamInterface<const char*> {};

// The committed traces are what the generator makes: anyone can regenerate and check them.
TEST_P(SimulateFamilies, CommittedTraceIsTheGeneratorsOutput) {
  const auto r = run(std::string("simulate --generate ") + GetParam() + " --seed 1");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(example(std::string("load/") + GetParam() + ".csv")));
}

TEST_P(SimulateFamilies, CompareTableHasTheBoundAndEveryProfile) {
  const auto r = run("simulate --compare --dha " + example("load/dha.yaml") + " --load " +
                     example(std::string("load/") + GetParam() + ".csv") +
                     " --profile default --profile fast --profile hpa --profile adaptive");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* row : {"\nbound ", "\ndefault ", "\nfast ", "\nhpa ", "\nadaptive "})
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  EXPECT_EQ(r.out.rfind("behaviour ", 0), 0u) << r.out;
}

INSTANTIATE_TEST_SUITE_P(Families, SimulateFamilies,
                         ::testing::Values("diurnal-day", "flash-crowd", "ramp-lag", "noisy-plateau", "diurnal-week"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (auto& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST_F(Cli, SimulateGenerateIsSeededAndRefusesUnknownFamilies) {
  const auto a = run("simulate --generate noisy-plateau --seed 7");
  const auto b = run("simulate --generate noisy-plateau --seed 7");
  const auto c = run("simulate --generate noisy-plateau --seed 8");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out, c.out);
  const auto bad = run("simulate --generate sawtooth");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(
      bad.err.find("unknown family \"sawtooth\" (diurnal-day, flash-crowd, ramp-lag, noisy-plateau, diurnal-week, "
                   "weekly-holiday)"),
      std::string::npos)
      << bad.err;
}

// A week of history, then one day of decisions: the forecast finds every daily rise ready.
TEST_F(Cli, SimulatePredictiveOnTheLastDayOfAWeek) {
  const auto r =
      run("simulate --compare --dha " + example("load/dha.yaml") + " --load " + example("load/diurnal-week.csv") +
          " --start-at 604800 --initial-replicas 4 --profile adaptive --profile predictive");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\npredictive "), std::string::npos) << r.out;
  const auto bad = run("simulate --dha " + example("load/dha.yaml") + " --load " + example("load/flash-crowd.csv") +
                       " --start-at 99999999");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--start-at: must be before the trace's last second"), std::string::npos) << bad.err;
}

TEST_F(Cli, SimulateCompareMarkdownAndSeveralFiles) {
  const auto fast = write("fast.yaml",
                          "spec: {minReplicas: 2, maxReplicas: 8, metrics: [{type: ReadConnections, target: "
                          "{averageValue: 150}}], behavior: {scaleUp: {stabilizationWindowSeconds: 0}}}");
  const auto r = run("simulate --compare --markdown --dha " + example("load/dha.yaml") + " --dha " + fast.string() +
                     " --load " + example("load/flash-crowd.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("| behaviour | replica-s | short of need | × bound |", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n| bound | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n| dha | "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n| fast | "), std::string::npos) << r.out;
}

// A policy that leaves load unserved pays for fewer replicas than the clairvoyant bound; the
// summary, the --compare table and the JSON count what it ran short as spent, so the ratio is
// never below 1 (the generated ramp through min 2, max 10, target 100 used to print 0.94x).
struct ShortRow {
  const char* profile;
  const char* bound_line;  // the summary's whole line
  const char* table_row;   // the --compare row, from the name to the ratio
  const char* json_field;
};

void PrintTo(const ShortRow& row, std::ostream* os) { *os << row.profile; }

class SimulateShortOfTheNeed : public Cli, public ::testing::WithParamInterface<ShortRow> {};

TEST_P(SimulateShortOfTheNeed, CountsItAsSpentInTheRatio) {
  const auto trace = write("ramp-lag.csv", run("simulate --generate ramp-lag").out);
  const auto dha = write("dha.yaml",
                         "spec: {minReplicas: 2, maxReplicas: 10, metrics: [{type: ReadConnections, target: "
                         "{averageValue: 100}}]}");
  const std::string base = "simulate --dha " + dha.string() + " --load " + trace.string() + " --profile ";
  const auto summary = run(base + GetParam().profile + " --summary-only");
  ASSERT_EQ(summary.code, 0) << summary.err;
  EXPECT_NE(summary.out.find(std::string("\n  clairvoyant bound:      ") + GetParam().bound_line + "\n"),
            std::string::npos)
      << summary.out;
  const auto table = run(base + GetParam().profile + " --compare");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find(std::string("\n") + GetParam().table_row + " "), std::string::npos) << table.out;
  const auto json = run(base + GetParam().profile + " --json -");
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find(GetParam().json_field), std::string::npos)
      << json.out.substr(json.out.size() > 1500 ? json.out.size() - 1500 : 0);
}

INSTANTIATE_TEST_SUITE_P(
    RampLag, SimulateShortOfTheNeed,
    ::testing::Values(
        ShortRow{"windowed",
                 "210850 replica-seconds (1.00x, counting 11903 replica-seconds short of the need as spent)",
                 "windowed           198960    11903    1.00", "\"shortfallReplicaSeconds\": 11903"},
        ShortRow{"hpa", "210850 replica-seconds (1.00x, counting 13403 replica-seconds short of the need as spent)",
                 "hpa                197460    13403    1.00", "\"shortfallReplicaSeconds\": 13403"},
        ShortRow{"default", "210850 replica-seconds (1.01x, counting 2670 replica-seconds short of the need as spent)",
                 "default            210900     2670    1.01", "\"shortfallReplicaSeconds\": 2670"}),
    [](const auto& info) { return std::string(info.param.profile); });

// A policy never below the need says nothing more than the ratio.
TEST_F(Cli, SimulateSaysNothingOfAShortfallItDidNotHave) {
  const auto r = run("simulate --summary-only --dha " + example("load/dha.yaml") + " --profile default --load " +
                     example("load/noisy-plateau.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("replica-seconds (1.24x)\n"), std::string::npos) << r.out;
}

TEST_F(Cli, SimulateRefusesSeveralSpecsWithoutCompareAndUnknownProfiles) {
  auto r = run("simulate --dha " + example("load/dha.yaml") + " --dha " + example("load/dha.yaml") + " --load " +
               example("load/flash-crowd.csv"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("several --dha or --profile values need --compare"), std::string::npos) << r.err;
  r = run("simulate --compare --svg x.svg --dha " + example("load/dha.yaml") + " --load " +
          example("load/flash-crowd.csv"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--compare prints one table"), std::string::npos) << r.err;
  r = run("simulate --dha " + example("load/dha.yaml") + " --profile clever --load " + example("load/flash-crowd.csv"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--profile: unknown profile \"clever\" (default, windowed, fast, hpa, adaptive, predictive "
                       "or forecast-only)"),
            std::string::npos)
      << r.err;
}

// The cells of a --compare row after its name.
std::string compare_row(const std::string& table, const std::string& name) {
  const auto at = table.find("\n" + name + " ");
  if (at == std::string::npos) return "(no row " + name + ")";
  const auto line = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
  return line.substr(line.find_first_not_of(' ', name.size()));
}

// `simulate --dha` takes a manifest as a user would apply it: without a policy it is what the API
// server would store, Adaptive; a spec that names Windowed stays Windowed.
TEST_F(Cli, SimulateAppliesTheCrdDefaultsToTheManifest) {
  const auto windowed = write("windowed.yaml",
                              "spec: {minReplicas: 2, maxReplicas: 8, metrics: [{type: ReadConnections, target: "
                              "{averageValue: 150}}], behavior: {policy: Windowed}}");
  const auto r =
      run("simulate --compare --dha " + example("load/dha.yaml") + " --dha " + windowed.string() + " --load " +
          example("load/diurnal-day.csv") + " --profile default --profile adaptive" + " --profile windowed");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(compare_row(r.out, "dha/default"), compare_row(r.out, "dha/adaptive")) << r.out;
  EXPECT_NE(compare_row(r.out, "dha/default"), compare_row(r.out, "dha/windowed")) << r.out;
  // As written, without a profile: the manifest without a policy simulates as Adaptive, the one
  // that names Windowed as Windowed.
  const auto plain = run("simulate --compare --dha " + example("load/dha.yaml") + " --dha " + windowed.string() +
                         " --load " + example("load/diurnal-day.csv"));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(compare_row(plain.out, "dha"), compare_row(r.out, "dha/adaptive")) << plain.out;
  EXPECT_EQ(compare_row(plain.out, "windowed"), compare_row(r.out, "dha/windowed")) << plain.out;
}

// The quorum floor comes from the engine adapter when the target object is given: a Postgres
// Application with two synchronous replicas needs three instances, so respectQuorum holds three.
TEST_F(Cli, SimulateTakesTheQuorumFloorFromTheTarget) {
  const auto target = write("db.yaml", R"(apiVersion: apps.cozystack.io/v1alpha1
kind: Postgres
metadata: {name: db, namespace: tenant-a}
spec: {replicas: 3, quorum: {maxSyncReplicas: 2}}
)");
  const auto load = write("quiet.csv", "time,ReadConnections\n0,10\n3600,10\n");
  const std::string base =
      "simulate --summary-only --initial-replicas 3 --dha " + example("load/dha.yaml") + " --load " + load.string();
  auto r = run(base + " --target " + target.string() + " --plugin-dir " DHA_PLUGIN_DIR " --plugins postgres");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("replicas range:         3..3"), std::string::npos) << r.out;
  r = run(base);  // without the target the floor is 1 and a quiet database shrinks to minReplicas
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("replicas range:         2..3"), std::string::npos) << r.out;
  const auto widget = write("widget.yaml", R"(apiVersion: apps.cozystack.io/v1alpha1
kind: Widget
metadata: {name: db, namespace: tenant-a}
spec: {replicas: 3}
)");
  r = run(base + " --target " + widget.string() + " --plugin-dir " DHA_PLUGIN_DIR);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no loaded engine adapter handles kind Widget in group apps.cozystack.io"), std::string::npos)
      << r.err;
}

struct SimBadRow {
  const char* name;
  const char* dha;
  const char* csv;
  const char* error;
};

class SimulateBadInput : public Cli, public ::testing::WithParamInterface<SimBadRow> {};

TEST_P(SimulateBadInput, ExitsTwoWithAClearMessage) {
  const auto dha = write("dha.yaml", GetParam().dha);
  const auto load = write("load.csv", GetParam().csv);
  const auto r = run("simulate --dha " + dha.string() + " --load " + load.string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find(GetParam().error), std::string::npos) << r.err;
}

#define GOOD_DHA \
  "spec: {minReplicas: 2, maxReplicas: 4, metrics: [{type: ReadConnections, target: {averageValue: 100}}]}"

INSTANTIATE_TEST_SUITE_P(
    Cases, SimulateBadInput,
    ::testing::Values(SimBadRow{"bad_yaml", "spec: [", "time,ReadConnections\n0,1\n", "dha.yaml: not valid YAML"},
                      SimBadRow{"bad_spec", "spec: {minReplicas: 4, maxReplicas: 3, metrics: []}",
                                "time,ReadConnections\n0,1\n",
                                "spec.maxReplicas: maxReplicas must be greater than or equal to minReplicas"},
                      SimBadRow{"csv_bad_cell", GOOD_DHA, "time,ReadConnections\n0,1\n60,x\n",
                                "load.csv line 3: column ReadConnections: \"x\" is not a number"},
                      SimBadRow{"csv_missing_metric", GOOD_DHA, "time,ReadCPUUtilization\n0,1\n60,1\n",
                                "load: no column for metric ReadConnections of the DHA spec"}),
    [](const auto& info) { return std::string(info.param.name); });

#undef GOOD_DHA

TEST_F(Cli, SimulateRequiresItsFlags) {
  const auto r = run("simulate --load x.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--dha"), std::string::npos) << r.err;
  const auto missing = run("simulate --dha /nonexistent.yaml --load /nonexistent.csv");
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("--dha: cannot read /nonexistent.yaml"), std::string::npos) << missing.err;
}

}  // namespace
