// The VictoriaMetrics / Prometheus /api/v1/query answer is outside data: whatever the metrics
// store (or anything answering on its address) sends. For every input:
//   - a result is a non-empty vector of finite samples (never a silent zero or NaN);
//   - a refusal is a dha::sdk::Error with one of the four documented codes and a message;
//   - the samples survive the host boundary: written as the plugin does (to_json) and read as
//     the host does (json::parse + Samples::from_json), they are the same samples.
// The same input is also read as a /api/v1/query_range answer: a result has a point, every
// point is finite and in increasing time within a series, no series has more points than asked
// for, and the series survive the host boundary as RangeResult.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "dha/sdk/json.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "dha/sdk/range_query_types.hpp"
#include "fuzz_check.hpp"
#include "prometheus_response.hpp"

using dha::fuzz::printable;

namespace {

constexpr std::int64_t kMaxPoints = 64;

void check_range(std::string_view body) {
  dha::sdk::RangeResult range;
  try {
    range = dha::plugins::parse_range_query_response(body, kMaxPoints);
  } catch (const dha::sdk::Error& e) {
    const auto code = e.status();
    FUZZ_CHECK(code == DHA_DATA_LOSS || code == DHA_FAILED_PRECONDITION || code == DHA_NOT_FOUND ||
                   code == DHA_RESOURCE_EXHAUSTED,
               std::string("unexpected range status ") + dha::sdk::status_name(code) + ": " + e.what());
    FUZZ_CHECK(std::string_view(e.what()).size() > 0);
    return;
  }
  bool any = false;
  for (const auto& s : range.series) {
    FUZZ_CHECK(static_cast<std::int64_t>(s.points.size()) <= kMaxPoints, "more points than asked for");
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      FUZZ_CHECK(std::isfinite(s.points[i].second), "a non-finite point was accepted");
      FUZZ_CHECK(i == 0 || s.points[i - 1].first < s.points[i].first, "points out of time order");
    }
    any = any || !s.points.empty();
  }
  FUZZ_CHECK(any, "an accepted range has no points");
  const std::string wire = range.to_json();
  const auto back = dha::sdk::RangeResult::from_json(dha::sdk::json::parse(wire, "range result"));
  FUZZ_CHECK(back == range, "the range changed across the host boundary: " + printable(wire));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  check_range(body);
  dha::sdk::Samples samples;
  try {
    samples = dha::plugins::parse_instant_query_response(body);
  } catch (const dha::sdk::Error& e) {
    const auto code = e.status();
    FUZZ_CHECK(
        code == DHA_DATA_LOSS || code == DHA_FAILED_PRECONDITION || code == DHA_NOT_FOUND || code == DHA_OUT_OF_RANGE,
        std::string("unexpected status ") + dha::sdk::status_name(code) + ": " + e.what());
    FUZZ_CHECK(std::string_view(e.what()).size() > 0);
    return 0;
  }

  FUZZ_CHECK(!samples.samples.empty(), "an accepted response has no samples");
  for (const auto& s : samples.samples) FUZZ_CHECK(std::isfinite(s.value), "a non-finite sample was accepted");

  const std::string wire = samples.to_json();
  const auto doc = dha::sdk::json::parse(wire, "samples");  // throws (and so crashes) if unreadable
  const auto back = dha::sdk::Samples::from_json(doc);
  FUZZ_CHECK(back == samples, "samples changed across the host boundary: " + printable(wire));
  return 0;
}
