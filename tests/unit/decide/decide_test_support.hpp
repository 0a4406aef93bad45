#pragma once

// Builders for decision-core tests: a baseline that scales 3 -> 4 (docs/behaviour.md#formula-worked-example),
// tweaked per case. Shared by tests/unit/decide and tests/unit/gates.

#include <rapidjson/document.h>

#include <functional>
#include <stdexcept>
#include <string>

#include "dha/decide/decide.hpp"
#include "dha/model/spec.hpp"

namespace dha::testing {

inline model::DhaSpec spec_from_json(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  if (doc.HasParseError()) throw std::runtime_error("bad test JSON: " + json);
  return model::parse_spec(doc, model::SpecParseOptions{.require_target_ref = false});
}

// min 2, max 6, ReadConnections target 150, defaults otherwise.
inline model::DhaSpec baseline_spec() {
  return spec_from_json(R"({"minReplicas":2,"maxReplicas":6,
      "metrics":[{"type":"ReadConnections","target":{"averageValue":"150"}}]})");
}

// current 3 (1 primary + 2 readers), converged, 420 connections in total: 210 per reader -> 4.
inline model::Observation baseline_observation() {
  model::Observation obs;
  obs.current_replicas = 3;
  obs.available_replicas = 3;
  obs.primary_count = 1;
  obs.quorum_floor = 1;
  obs.metrics = {{"ReadConnections", 420.0}};
  return obs;
}

struct DecideCase {
  model::DhaSpec spec = baseline_spec();
  model::Observation obs = baseline_observation();
  model::DecisionState state;
  std::int64_t now = 10000;

  // The per-reader average that yields `total` connections over the current readers.
  DecideCase& load(double total) {
    obs.metrics = {{"ReadConnections", total}};
    return *this;
  }
  DecideCase& current(std::int32_t n) {
    obs.current_replicas = n;
    obs.available_replicas = n;
    return *this;
  }
  decide::Decision run(const gates::GateChain* chain = nullptr) const {
    decide::DecideOptions options;
    options.chain = chain;
    return decide::decide(spec, obs, state, now, options);
  }
};

}  // namespace dha::testing
