#include "host/logging.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <spdlog/details/log_msg.h>

#include <regex>
#include <string>

namespace dha::op {
namespace {

std::string render(LogFormat format, const std::string& text) {
  StructuredFormatter f(format);
  spdlog::memory_buf_t out;
  spdlog::details::log_msg msg("db-autoscaler", spdlog::level::info, text);
  f.format(msg, out);
  return std::string(out.data(), out.size());
}

TEST(StructuredLogs, JsonLinesCarryTheDhaOfTheScope) {
  std::string line;
  {
    DhaLogScope scope("tenant-a", "db");
    line = render(LogFormat::Json, "scaled \"db\"\nnext line\t\x01");
  }
  ASSERT_EQ(line.back(), '\n');
  rapidjson::Document d;
  d.Parse(line.c_str());
  ASSERT_FALSE(d.HasParseError()) << line;
  EXPECT_STREQ(d["level"].GetString(), "info");
  EXPECT_STREQ(d["msg"].GetString(), "scaled \"db\"\nnext line\t\x01");
  EXPECT_STREQ(d["namespace"].GetString(), "tenant-a");
  EXPECT_STREQ(d["name"].GetString(), "db");
  EXPECT_EQ(std::string(d["ts"].GetString()).size(), 24u);  // 2026-11-30T01:02:03.456Z
}

TEST(StructuredLogs, OutsideAScopeThereIsNoDha) {
  rapidjson::Document d;
  d.Parse(render(LogFormat::Json, "starting").c_str());
  ASSERT_FALSE(d.HasParseError());
  EXPECT_FALSE(d.HasMember("namespace"));
  EXPECT_FALSE(d.HasMember("controller"));
  EXPECT_FALSE(d.HasMember("reconcileID"));
  ASSERT_TRUE(d.HasMember("logger"));
  EXPECT_STREQ(d["logger"].GetString(), "db-autoscaler");
}

rapidjson::Document parsed(const std::string& line) {
  rapidjson::Document d;
  d.Parse(line.c_str());
  return d;
}

// The fields controller-runtime's reconcile lines have, so a log query written for those
// operators ({controller="dha"}, one reconcileID) finds ours.
TEST(StructuredLogs, AReconcilesLinesCarryTheControllerAndOneReconcileId) {
  std::string first, again, next;
  {
    DhaLogScope scope("tenant-a", "db");
    first = render(LogFormat::Json, "observed");
    again = render(LogFormat::Json, "decided");
  }
  {
    DhaLogScope scope("tenant-a", "db");
    next = render(LogFormat::Json, "observed");
  }
  const auto d = parsed(first);
  ASSERT_FALSE(d.HasParseError()) << first;
  for (const char* field : {"logger", "controller", "controllerGroup", "controllerKind", "reconcileID"})
    ASSERT_TRUE(d.HasMember(field) && d[field].IsString()) << field << " missing: " << first;
  EXPECT_STREQ(d["logger"].GetString(), "db-autoscaler");
  EXPECT_STREQ(d["controller"].GetString(), "dha");
  EXPECT_STREQ(d["controllerGroup"].GetString(), "autoscaling.cozystack.io");
  EXPECT_STREQ(d["controllerKind"].GetString(), "DatabaseHorizontalAutoscaler");
  const std::string id = d["reconcileID"].GetString();
  EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << id;
  EXPECT_EQ(std::string(parsed(again)["reconcileID"].GetString()), id) << "one reconcile, one ID";
  EXPECT_NE(std::string(parsed(next)["reconcileID"].GetString()), id) << "the next reconcile has its own";
}

TEST(StructuredLogs, ANestedScopeRestoresTheOuterReconcileId) {
  DhaLogScope outer("a", "one");
  {
    DhaLogScope inner("b", "two");
    EXPECT_EQ(std::string(parsed(render(LogFormat::Json, "x"))["reconcileID"].GetString()), inner.reconcile_id());
  }
  EXPECT_EQ(std::string(parsed(render(LogFormat::Json, "x"))["reconcileID"].GetString()), outer.reconcile_id());
}

TEST(StructuredLogs, ScopesNestAndRestore) {
  DhaLogScope outer("a", "one");
  {
    DhaLogScope inner("b", "two");
    EXPECT_NE(render(LogFormat::Text, "x").find(" [b/two] x"), std::string::npos);
  }
  EXPECT_NE(render(LogFormat::Text, "x\ny").find(" [a/one] x y\n"), std::string::npos);
}

TEST(StructuredLogs, FlagValuesAreCheckedWithAClearMessage) {
  EXPECT_EQ(parse_log_format("json"), LogFormat::Json);
  EXPECT_EQ(parse_log_format("text"), LogFormat::Text);
  EXPECT_EQ(parse_log_level("debug"), spdlog::level::debug);
  EXPECT_EQ(parse_log_level("warn"), spdlog::level::warn);
  try {
    parse_log_format("yaml");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--log-format"), std::string::npos);
  }
  EXPECT_THROW(parse_log_level("loud"), std::invalid_argument);
  EXPECT_THROW(parse_log_level("-1"), std::invalid_argument);
}

// controller-runtime's flag values: --zap-encoder console, --zap-log-level as a verbosity.
TEST(StructuredLogs, ZapFlagValuesMeanWhatTheyMeanInControllerRuntime) {
  struct Case {
    const char* level;
    spdlog::level::level_enum want;
  };
  for (const Case& c :
       {Case{"0", spdlog::level::info}, Case{"1", spdlog::level::debug}, Case{"2", spdlog::level::trace},
        Case{"10", spdlog::level::trace}, Case{"error", spdlog::level::err}}) {
    EXPECT_EQ(parse_log_level(c.level), c.want) << c.level;
  }
  EXPECT_EQ(parse_log_format("console"), LogFormat::Text);
}

// One vocabulary: a line's level is the word the flag takes, never spdlog's "warning".
TEST(StructuredLogs, LinesNameTheLevelAsTheFlagDoes) {
  StructuredFormatter json(LogFormat::Json), text(LogFormat::Text);
  for (const auto& [level, word] :
       {std::pair{spdlog::level::warn, "warn"}, std::pair{spdlog::level::err, "error"},
        std::pair{spdlog::level::critical, "error"}, std::pair{spdlog::level::trace, "trace"}}) {
    spdlog::details::log_msg msg("db-autoscaler", level, "x");
    spdlog::memory_buf_t out;
    json.format(msg, out);
    rapidjson::Document d;
    d.Parse(std::string(out.data(), out.size()).c_str());
    ASSERT_FALSE(d.HasParseError());
    EXPECT_STREQ(d["level"].GetString(), word);
    EXPECT_NO_THROW(parse_log_level(d["level"].GetString()));
    spdlog::memory_buf_t line;
    text.format(msg, line);
    EXPECT_NE(std::string(line.data(), line.size()).find(std::string(" ") + word + " x"), std::string::npos);
  }
}

}  // namespace
}  // namespace dha::op
