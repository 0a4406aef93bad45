// A DHA spec is outside data: written by users, read from the API server (JSON) and by
// `db-autoscaler simulate` from a file (YAML through yaml_to_json). For every input:
//   - parse_spec accepts a spec that satisfies the CRD rules, or throws InputError naming a
//     field under "spec" with a problem; never another exception or a crash;
//   - an accepted spec written back (spec_to_json) and read again is the same spec;
//   - a spec accepted with targetRef required is accepted without, and has a targetRef.

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "dha/model/json_read.hpp"
#include "dha/model/quantity.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/yaml_to_json.hpp"
#include "fuzz_check.hpp"
#include "model_checks.hpp"

namespace {

using namespace dha::model;
using dha::fuzz::printable;
using dha::fuzz::stringify;

void check_valid(const DhaSpec& s) {
  FUZZ_CHECK(s.min_replicas >= 2 && s.max_replicas >= s.min_replicas);
  FUZZ_CHECK(!s.metrics.empty());
  for (const auto& m : s.metrics) {
    if (m.is_utilization()) {
      FUZZ_CHECK(m.type == MetricType::ReadCPUUtilization && *m.average_utilization >= 1);
      continue;
    }
    FUZZ_CHECK(parse_quantity(m.target.text).has_value(),
               "an accepted target is not a quantity: " + printable(m.target.text));
    FUZZ_CHECK(std::isfinite(m.target.value));
  }
  FUZZ_CHECK(std::isfinite(s.behavior.tolerance) && s.behavior.tolerance >= 0 && s.behavior.tolerance <= 1);
  FUZZ_CHECK(s.behavior.convergence_deadline_seconds >= 1 &&
             s.behavior.convergence_deadline_seconds <= kMaxConvergenceDeadlineSeconds);
  FUZZ_CHECK(s.behavior.scale_up.stabilization_window_seconds >= 0 && s.behavior.scale_up.step >= 1);
  FUZZ_CHECK(s.behavior.scale_down.stabilization_window_seconds >= 0 && s.behavior.scale_down.step >= 1);
  FUZZ_CHECK(s.constraints.max_replication_lag_seconds >= 0);
  if (s.target_ref) FUZZ_CHECK(!s.target_ref->name.empty() && !s.target_ref->api_group.empty());
}

// Field by field: the written text alone would hide a field truncated the same way twice.
bool same_spec(const DhaSpec& a, const DhaSpec& b) {
  if (a.target_ref.has_value() != b.target_ref.has_value()) return false;
  if (a.target_ref && (a.target_ref->api_group != b.target_ref->api_group || a.target_ref->kind != b.target_ref->kind ||
                       a.target_ref->name != b.target_ref->name))
    return false;
  if (a.metrics.size() != b.metrics.size()) return false;
  for (std::size_t i = 0; i < a.metrics.size(); ++i)
    if (a.metrics[i].type != b.metrics[i].type || a.metrics[i].target.text != b.metrics[i].target.text ||
        a.metrics[i].average_utilization != b.metrics[i].average_utilization)
      return false;
  return a.min_replicas == b.min_replicas && a.max_replicas == b.max_replicas && a.dry_run == b.dry_run &&
         a.behavior.scale_up.stabilization_window_seconds == b.behavior.scale_up.stabilization_window_seconds &&
         a.behavior.scale_up.step == b.behavior.scale_up.step &&
         a.behavior.scale_down.stabilization_window_seconds == b.behavior.scale_down.stabilization_window_seconds &&
         a.behavior.scale_down.step == b.behavior.scale_down.step &&
         a.behavior.convergence_deadline_seconds == b.behavior.convergence_deadline_seconds &&
         a.behavior.tolerance == b.behavior.tolerance && a.constraints.respect_quorum == b.constraints.respect_quorum &&
         a.constraints.max_replication_lag_seconds == b.constraints.max_replication_lag_seconds;
}

void check_spec(const rapidjson::Value& v) {
  DhaSpec lenient;
  try {
    lenient = parse_spec(v, SpecParseOptions{.require_target_ref = false});
  } catch (const InputError& e) {
    dha::fuzz::check_input_error(e, "spec");
    try {
      parse_spec(v);
    } catch (const InputError&) {
      return;
    }
    FUZZ_CHECK(false, "accepted with targetRef required, refused without");
  }
  check_valid(lenient);

  rapidjson::Document first;
  static_cast<rapidjson::Value&>(first) = spec_to_json(lenient, first.GetAllocator());
  const std::string written = stringify(first);
  DhaSpec again;
  try {
    again = parse_spec(first, SpecParseOptions{.require_target_ref = false});
  } catch (const InputError& e) {
    FUZZ_CHECK(false, std::string("a spec we wrote is refused: ") + e.what() + " in " + printable(written));
  }
  FUZZ_CHECK(same_spec(lenient, again), "a field changed across a write and read: " + printable(written));
  rapidjson::Document second;
  static_cast<rapidjson::Value&>(second) = spec_to_json(again, second.GetAllocator());
  FUZZ_CHECK(stringify(second) == written,
             "the spec changed across a write and read: " + printable(written) + " -> " + printable(stringify(second)));

  try {
    const DhaSpec strict = parse_spec(v);
    FUZZ_CHECK(strict.target_ref.has_value());
  } catch (const InputError& e) {
    FUZZ_CHECK(e.field().starts_with("spec.targetRef"), "only targetRef may differ: " + std::string(e.what()));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  // As the operator sees it: a JSON spec from the API server.
  rapidjson::Document json;
  if (dha::fuzz::parse_json(text, json)) check_spec(json);

  // As `db-autoscaler simulate` reads it: a DHA object or a bare spec, in YAML.
  rapidjson::Document yaml;
  try {
    yaml = yaml_to_json(text, "spec.yaml");
  } catch (const InputError& e) {
    dha::fuzz::check_input_error(e, "spec.yaml");
    return 0;
  }
  if (!yaml.IsObject()) return 0;
  const rapidjson::Value* spec = dha::model::json::find(yaml, "spec");
  check_spec(spec != nullptr ? *spec : yaml);
  return 0;
}
