// Plugins are third-party code: every document a plugin returns (and every request a plugin
// reads) goes through the SDK's typed from_json(). Each input is parsed once, as the host
// parses plugin output (dha::sdk::json::parse), then read as every document type. For each:
//   - from_json returns a value or throws dha::sdk::Error INVALID_ARGUMENT with a message;
//   - a value written back (to_json) and read again is the same value: what the plugin meant
//     is what the host gets;
//   - Samples hold only finite numbers.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "dha/sdk/actuator_types.hpp"
#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/gate_types.hpp"
#include "dha/sdk/json.hpp"
#include "dha/sdk/metrics_types.hpp"
#include "fuzz_check.hpp"

namespace {

namespace sdk = dha::sdk;
using dha::fuzz::printable;

void check_error(const sdk::Error& e) {
  FUZZ_CHECK(e.status() == DHA_INVALID_ARGUMENT,
             std::string("status ") + sdk::status_name(e.status()) + ": " + e.what());
  FUZZ_CHECK(std::string_view(e.what()).size() > 0, "an error without a message");
}

// Reads `doc` as T; if that works, checks T survives to_json -> parse -> from_json.
template <class T, class Read, class Write, class Same>
void check_type(const sdk::json::Value& doc, Read read, Write write, Same same) {
  T value;
  try {
    value = read(doc);
  } catch (const sdk::Error& e) {
    check_error(e);
    return;
  }
  const std::string text = write(value);
  sdk::json::Document reparsed;
  try {
    reparsed = sdk::json::parse(text, "written");
  } catch (const sdk::Error& e) {
    FUZZ_CHECK(false, std::string("a written document does not parse: ") + e.what() + ": " + printable(text));
  }
  try {
    const T again = read(reparsed);
    FUZZ_CHECK(same(value, again, text), "changed across to_json/from_json: " + printable(text, 400));
  } catch (const sdk::Error& e) {
    FUZZ_CHECK(false, std::string("a written document is refused: ") + e.what() + ": " + printable(text, 400));
  }
}

template <class T>
void check_equal_type(const sdk::json::Value& doc) {
  check_type<T>(
      doc, [](const sdk::json::Value& v) { return T::from_json(v); }, [](const T& v) { return v.to_json(); },
      [](const T& a, const T& b, const std::string&) { return a == b; });
}

// Types that borrow from their document have no ==; they must write the same text again.
template <class T>
void check_text_type(const sdk::json::Value& doc) {
  check_type<T>(
      doc, [](const sdk::json::Value& v) { return T::from_json(v); }, [](const T& v) { return v.to_json(); },
      [](const T&, const T& b, const std::string& text) { return b.to_json() == text; });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  sdk::json::Document doc;
  try {
    doc = sdk::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), "plugin output");
  } catch (const sdk::Error& e) {
    check_error(e);
    return 0;
  }

  check_equal_type<sdk::Topology>(doc);
  check_equal_type<sdk::Queries>(doc);
  check_equal_type<sdk::Health>(doc);
  check_equal_type<sdk::Verdict>(doc);
  check_equal_type<sdk::InstantQuery>(doc);
  check_equal_type<sdk::QueryRequest>(doc);
  check_equal_type<sdk::Samples>(doc);
  check_text_type<sdk::GateRequest>(doc);
  check_text_type<sdk::ActuatorRequest>(doc);
  check_text_type<sdk::HealthRequest>(doc);
  check_type<std::vector<sdk::TargetKind>>(
      doc, [](const sdk::json::Value& v) { return sdk::targets_from_json(v); }, &sdk::targets_to_json,
      [](const auto& a, const auto& b, const std::string&) { return a == b; });
  // ActuatorPlan owns copies of its patch bodies (no ==, not copyable): compare written text.
  try {
    const sdk::ActuatorPlan plan = sdk::ActuatorPlan::from_json(doc);
    const std::string text = plan.to_json();
    const sdk::ActuatorPlan again = sdk::ActuatorPlan::from_json(sdk::json::parse(text, "written plan"));
    FUZZ_CHECK(again.to_json() == text, "an actuator plan changed: " + printable(text, 400));
  } catch (const sdk::Error& e) {
    check_error(e);
  }

  try {
    for (const auto& s : sdk::Samples::from_json(doc).samples)
      FUZZ_CHECK(std::isfinite(s.value), "a non-finite sample");
  } catch (const sdk::Error&) {
  }
  return 0;
}
