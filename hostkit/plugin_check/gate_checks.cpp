// gate.holds: a gate is there to hold something. A sweep of requests — every half hour of a day,
// a scale-up and a scale-down, a quiet and a busy database — plus the author's own requests with
// the outcome each must get: a gate that holds none of them, or all of them, guards nothing.
#include <fmt/format.h>

#include "capability_checks.hpp"
#include "declared_samples.hpp"
#include "dha/sdk/sdk.hpp"
#include "plugin_calls.hpp"
#include "plugin_host/status_text.hpp"
#include "samples.hpp"

namespace dha::plugin_check {

namespace {

using plugin_host::CallResult;
using plugin_host::PluginInstance;

constexpr int64_t kSweepDay = 1700006400;  // a UTC midnight

struct SweepRequest {
  std::string request;
  std::string what;
};

std::vector<SweepRequest> sweep() {
  std::vector<SweepRequest> out;
  const std::pair<int, int> proposals[] = {{3, 4}, {4, 3}};
  const struct {
    const char* name;
    double write_rate;
    double lag_seconds;
  } loads[] = {{"quiet", 0, 0}, {"busy", 100000, 3600}};
  for (int half_hour = 0; half_hour < 48; ++half_hour) {
    for (const auto& [from, to] : proposals) {
      for (const auto& load : loads) {
        const int64_t now = kSweepDay + half_hour * 1800;
        out.push_back(
            {fmt::format(
                 R"({{"now": {}, "dha": {{"namespace": "{}", "name": "db"}}, "spec": {{"minReplicas": 2, "maxReplicas": 6,
              "metrics": [{{"type": "ReadConnections", "target": {{"averageValue": "150"}}}}]}},
              "observation": {{"currentReplicas": {}, "primaryCount": 1, "quorumFloor": 1, "healthKnown": true, "operational": true,
                "availableReplicas": {}, "metrics": [{{"type": "ReadConnections", "value": 200}}], "lagSeconds": {},
                "writeRate": {}, "quotaMaxReplicas": null}},
              "state": {{}}, "proposal": {{"kind": "Scale", "currentReplicas": {}, "replicas": {}}}}})",
                 now, kNamespace, from, from, load.lag_seconds, load.write_rate, from, to),
             fmt::format("{} -> {} at {:02}:{:02} UTC, {}", from, to, half_hour / 2, half_hour % 2 * 30, load.name)});
      }
    }
  }
  return out;
}

// Whether `p` held `request`: a freeze, or a clamp to anything but the proposal.
bool holds(const PluginInstance& p, const std::string& request, const std::string& what) {
  const CallResult r = checked(p, p.call(p.gate()->evaluate, request), "evaluate");
  if (!r.ok())
    fail("plugin \"{}\": evaluate of {} failed with {}: {}", p.info().id, what, plugin_host::status_text(r.status),
         r.error);
  auto doc = parse_or_fail(p, r.output, "evaluate");
  sdk::Verdict verdict;
  try {
    verdict = sdk::Verdict::from_json(doc);
  } catch (const std::exception& e) {
    fail("plugin \"{}\": evaluate of {}: {}", p.info().id, what, e.what());
  }
  if (verdict.kind == sdk::Verdict::Kind::kPass) return false;
  if (verdict.kind == sdk::Verdict::Kind::kFreeze) return true;
  auto request_doc = sdk::json::parse(request, "gate request");
  return verdict.replicas != sdk::GateRequest::from_json(request_doc).proposal.replicas;
}

}  // namespace

CheckOutcome check_gate_holds(const Options& options) {
  const auto author = author_gate_samples(options);
  return for_each_instance(options, DHA_EXT_GATE, [&](const PluginInstance& p) {
    for (const auto& sample : author) {
      const bool held = holds(p, sample.request, sample.origin);
      if (held != sample.expect_hold)
        fail("plugin \"{}\": {} expects a {}, and the gate {} it", p.info().id, sample.origin,
             sample.expect_hold ? "hold" : "pass", held ? "held" : "passed");
    }
    int held = 0, passed = 0;
    const auto requests = sweep();
    for (const auto& r : requests) (holds(p, r.request, r.what) ? held : passed)++;
    for (const auto& sample : author) (sample.expect_hold ? held : passed)++;
    const int total = held + passed;
    if (held == 0)
      fail(
          "plugin \"{}\": held none of {} requests ({} swept: every half hour of a day, up and down, quiet and busy; "
          "{} from --samples): a gate that never holds guards nothing. If it holds only on inputs the sweep does not "
          "make, give one with --samples DIR: {{\"expect\": \"hold\", \"request\": {{...}}}}",
          p.info().id, total, requests.size(), author.size());
    if (passed == 0)
      fail(
          "plugin \"{}\": held every one of {} requests: a gate that never passes stops every DHA it guards. Give a "
          "request it passes with --samples DIR: {{\"expect\": \"pass\", \"request\": {{...}}}}",
          p.info().id, total);
    return fmt::format("{}: held {} and passed {} of {} requests ({} from --samples, each as expected)", p.info().id,
                       held, passed, total, author.size());
  });
}

}  // namespace dha::plugin_check
