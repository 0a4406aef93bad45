#include "operator/logging.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <spdlog/details/log_msg.h>

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
}

}  // namespace
}  // namespace dha::op
