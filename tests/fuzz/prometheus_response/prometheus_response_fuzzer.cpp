// The VictoriaMetrics / Prometheus /api/v1/query answer is outside data: whatever the metrics
// store (or anything answering on its address) sends. For every input:
//   - a result is a non-empty vector of finite samples (never a silent zero or NaN);
//   - a refusal is a dha::sdk::Error with one of the four documented codes and a message;
//   - the samples survive the host boundary: written as the plugin does (to_json) and read as
//     the host does (json::parse + Samples::from_json), they are the same samples.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "dha/sdk/json.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "fuzz_check.hpp"
#include "prometheus_response.hpp"

using dha::fuzz::printable;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  dha::sdk::Samples samples;
  try {
    samples = dha::plugins::parse_instant_query_response(body);
  } catch (const dha::sdk::Error& e) {
    const auto code = e.status();
    FUZZ_CHECK(code == DHA_DATA_LOSS || code == DHA_FAILED_PRECONDITION || code == DHA_NOT_FOUND ||
                   code == DHA_OUT_OF_RANGE,
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
