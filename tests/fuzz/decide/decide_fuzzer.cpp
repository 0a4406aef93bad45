// `db-autoscaler decide` is a public interface: one JSON document in, one decision out. This
// runs the real command (add_decide_command, through CLI11) on each input and checks:
//   - bad input ends the command with exit code 2 and a message; nothing else escapes;
//   - a decision is JSON with a known kind; Freeze and NoChange keep the current count;
//     ableToScale is true exactly for Scale and NoChange;
//   - a Scale never moves away from the allowed range: above maxReplicas (or the quota) only
//     while coming down, below the quorum floor or minReplicas only while going up;
//   - the returned state is valid input for the next cycle, and keeps at most 64
//     recommendations, none from the future.

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "dha/model/decision_state.hpp"
#include "exit.hpp"
#include "fuzz_check.hpp"
#include "model_checks.hpp"

namespace {

using dha::fuzz::printable;

const std::string& input_path() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/dha-fuzz-decide-XXXXXX";
    const int fd = mkstemp(tmpl);
    FUZZ_CHECK(fd >= 0, "cannot create the input file");
    close(fd);
    static std::string made;
    made = tmpl;
    std::atexit([] { unlink(made.c_str()); });
    return made;
  }();
  return path;
}

// Runs `db-autoscaler decide FILE`; returns the exit code and what it printed or the message.
int run_decide(std::string_view input, std::string& output) {
  std::ofstream(input_path(), std::ios::binary | std::ios::trunc)
      .write(input.data(), static_cast<std::streamsize>(input.size()));
  CLI::App app("db-autoscaler");
  dha::cli::add_decide_command(app);
  std::ostringstream captured;
  auto* saved = std::cout.rdbuf(captured.rdbuf());
  int code = 0;
  try {
    const char* argv[] = {"db-autoscaler", "decide", input_path().c_str()};
    app.parse(3, argv);
    output = captured.str();
  } catch (const dha::cli::Exit& e) {
    code = e.code();
    output = e.what();
  }
  std::cout.rdbuf(saved);
  return code;
}

std::int64_t integer(const rapidjson::Value& object, const char* name, std::int64_t fallback) {
  if (!object.IsObject()) return fallback;
  auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : fallback;
}

void check_decision(const rapidjson::Document& in, const std::string& printed) {
  rapidjson::Document out;
  FUZZ_CHECK(dha::fuzz::parse_json(printed, out) && out.IsObject(),
             "the decision is not a JSON object: " + printable(printed));
  const std::string kind = out["kind"].GetString();
  FUZZ_CHECK(kind == "Scale" || kind == "NoChange" || kind == "Freeze" || kind == "Rollback", kind);
  const auto& spec = in["spec"];
  const auto& obs = in["observation"];
  const std::int64_t current = integer(obs, "currentReplicas", -1);
  const std::int64_t desired = out["desiredReplicas"].GetInt64();
  FUZZ_CHECK(out["ableToScale"].GetBool() == (kind == "Scale" || kind == "NoChange"), printable(printed));
  if (kind == "Freeze" || kind == "NoChange") FUZZ_CHECK(desired == current, printable(printed));
  if (kind == "Scale") {
    FUZZ_CHECK(desired != current, printable(printed));
    std::int64_t hi = integer(spec, "maxReplicas", INT64_MAX);
    hi = std::min(hi, integer(obs, "quotaMaxReplicas", INT64_MAX));
    std::int64_t lo = integer(spec, "minReplicas", 0);
    const bool respect_quorum =
        !(spec.HasMember("constraints") && spec["constraints"].IsObject() &&
          spec["constraints"].HasMember("respectQuorum") && spec["constraints"]["respectQuorum"].IsFalse());
    if (respect_quorum) lo = std::max(lo, integer(obs, "quorumFloor", 1));
    if (desired > hi) FUZZ_CHECK(desired < current, "scaled above the ceiling: " + printable(printed, 600));
    if (desired < lo) FUZZ_CHECK(desired > current, "scaled below the floor: " + printable(printed, 600));
  }

  const std::int64_t now = in["now"].GetInt64();
  dha::model::DecisionState next;
  try {
    next = dha::model::parse_decision_state(out["state"]);
  } catch (const dha::model::InputError& e) {
    FUZZ_CHECK(false, std::string("the returned state is not valid input: ") + e.what());
  }
  FUZZ_CHECK(next.recommendations.size() <= 64, std::to_string(next.recommendations.size()) + " recommendations kept");
  for (const auto& r : next.recommendations) FUZZ_CHECK(r.time <= now, "a recommendation from the future");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string output;
  const int code = run_decide(input, output);
  if (code != 0) {
    FUZZ_CHECK(code == dha::cli::kExitBadInput, "exit code " + std::to_string(code) + ": " + output);
    FUZZ_CHECK(!output.empty(), "bad input without a message");
    return 0;
  }
  rapidjson::Document in;
  FUZZ_CHECK(dha::fuzz::parse_json(input, in), "a decision for input that is not JSON");
  check_decision(in, output);
  return 0;
}
