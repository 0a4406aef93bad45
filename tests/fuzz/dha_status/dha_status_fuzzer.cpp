// The DHA status is read back every cycle from the API server, where anyone with write access
// to the status subresource (or an older operator version) may have put anything. For every
// input:
//   - parse_status returns a status or throws InputError naming a field under "status";
//   - a status we write (status_to_json) reads back as the same status: nothing the decision
//     needs next cycle (windows, backoff, in-flight marker, conditions) is lost or changed;
//   - the same holds for the `decide` state object (parse_decision_state).

#include <cstdint>
#include <string>
#include <string_view>

#include "dha/model/decision_state.hpp"
#include "dha/model/status.hpp"
#include "fuzz_check.hpp"
#include "model_checks.hpp"

namespace {

using namespace dha::model;
using dha::fuzz::printable;
using dha::fuzz::stringify;

void check_status(const rapidjson::Value& v) {
  DhaStatus status;
  try {
    status = parse_status(v);
  } catch (const InputError& e) {
    dha::fuzz::check_input_error(e, "status");
    return;
  }
  rapidjson::Document written;
  static_cast<rapidjson::Value&>(written) = status_to_json(status, written.GetAllocator());
  DhaStatus again;
  try {
    again = parse_status(written);
  } catch (const InputError& e) {
    FUZZ_CHECK(false,
               std::string("a status we wrote is refused: ") + e.what() + " in " + printable(stringify(written), 400));
  }
  FUZZ_CHECK(again == status, "the status changed across a write and read: " + printable(stringify(written), 400));
}

void check_state(const rapidjson::Value& v) {
  DecisionState state;
  try {
    state = parse_decision_state(v);
  } catch (const InputError& e) {
    dha::fuzz::check_input_error(e, "state");
    return;
  }
  rapidjson::Document written;
  static_cast<rapidjson::Value&>(written) = decision_state_to_json(state, written.GetAllocator());
  DecisionState again;
  try {
    again = parse_decision_state(written);
  } catch (const InputError& e) {
    FUZZ_CHECK(false, std::string("a state we wrote is refused: ") + e.what());
  }
  FUZZ_CHECK(again == state, "the state changed across a write and read: " + printable(stringify(written), 400));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  rapidjson::Document doc;
  if (!dha::fuzz::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), doc)) return 0;
  // A whole DHA object or the bare status.
  const rapidjson::Value& status = doc.IsObject() && doc.HasMember("status") ? doc["status"] : doc;
  check_status(status);
  check_state(doc.IsObject() && doc.HasMember("state") ? doc["state"] : doc);
  return 0;
}
