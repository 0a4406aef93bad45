// The SDK's range_query trampoline: a source that does not override it says unimplemented, and
// the metrics contract (finite points, some point) holds on what a source returns.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "dha/sdk/sdk.hpp"

namespace {

namespace json = dha::sdk::json;
using dha::sdk::StringSink;

class InstantOnly : public dha::sdk::MetricSource {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "instant-only", .name = "Instant only", .version = "0.1.0", .vendor = "tests", .description = "d"};
  InstantOnly(const dha::sdk::Host&, const json::Value&) {}
  dha::sdk::Samples instant_query(const dha::sdk::InstantQuery&) const override { return {{{{}, 1}}}; }
};

class Ranged : public dha::sdk::MetricSource {
 public:
  static constexpr dha::sdk::PluginInfo info{
      .id = "ranged", .name = "Ranged", .version = "0.1.0", .vendor = "tests", .description = "d"};
  Ranged(const dha::sdk::Host&, const json::Value&) {}
  dha::sdk::Samples instant_query(const dha::sdk::InstantQuery&) const override { return {{{{}, 1}}}; }
  dha::sdk::RangeResult range_query(const dha::sdk::RangeQuery& q) const override {
    if (q.query == "nothing") return {{{{{"pod", "a"}}, {}}}};
    if (q.query == "nan") return {{{{}, {{q.start, std::nan("")}}}}};
    return {{{{{"pod", "a"}}, {{q.start, 1.5}, {q.start + q.step, 2}}}}};
  }
};

DHA_DEFINE_PLUGIN_ENTRY(range_test_entry, InstantOnly, Ranged)

class RangeExport : public ::testing::Test {
 protected:
  dha_status range(const std::string& id, const std::string& in) {
    const dha_plugin* p = nullptr;
    StringSink create_error;
    EXPECT_EQ(range_test_entry()->create(&host_, dha::sdk::to_dha_str(id), dha::sdk::to_dha_str("{}"), &p,
                                         create_error.sink()),
              DHA_OK);
    const auto* table = static_cast<const dha_metrics*>(p->get_extension(p, DHA_EXT_METRICS));
    EXPECT_EQ(table->struct_size, sizeof(dha_metrics));
    out_.clear();
    error_.clear();
    const dha_status s = table->range_query(p, dha::sdk::to_dha_str(in), out_.sink(), error_.sink());
    p->destroy(p);
    return s;
  }
  static std::string request(const std::string& query) {
    return R"({"query":")" + query + R"(","namespace":"a","start":600,"end":720,"step":60})";
  }
  dha_host host_{sizeof(dha_host), DHA_ABI_VERSION_MAJOR, DHA_ABI_VERSION_MINOR, "test", "0", nullptr, nullptr};
  StringSink out_;
  StringSink error_;
};

TEST_F(RangeExport, ASourceWithoutRangesSaysUnimplemented) {
  EXPECT_EQ(range("instant-only", request("up")), DHA_UNIMPLEMENTED);
  EXPECT_NE(error_.str().find("does not run range queries"), std::string::npos) << error_.str();
}

TEST_F(RangeExport, TheContractHoldsOnTheAnswer) {
  EXPECT_EQ(range("ranged", request("up")), DHA_OK);
  EXPECT_EQ(out_.str(), R"({"series":[{"labels":{"pod":"a"},"points":[[600,1.5],[660,2.0]]}]})");
  EXPECT_EQ(range("ranged", request("nothing")), DHA_NOT_FOUND);
  EXPECT_EQ(range("ranged", request("nan")), DHA_OUT_OF_RANGE);
  // Bad input never reaches the source.
  EXPECT_EQ(range("ranged", R"({"query":"up","namespace":"a","start":720,"end":600,"step":60})"), DHA_INVALID_ARGUMENT);
  EXPECT_EQ(range("ranged", "not json"), DHA_INVALID_ARGUMENT);
}

}  // namespace
