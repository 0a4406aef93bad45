#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dha/decide/formula.hpp"
#include "dha/gates/gate_chain.hpp"
#include "dha/model/decision_state.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"

namespace dha::decide {

struct ConditionView {
  std::string type;
  std::string status;  // "True" / "False"
  std::string reason;
  std::string message;
};

struct Decision {
  model::DecisionKind kind = model::DecisionKind::NoChange;
  std::int32_t current_replicas = 0;
  std::int32_t desired_replicas = 0;      // == current for Freeze and NoChange
  std::int32_t raw_desired_replicas = 0;  // 0 when metrics were unavailable
  bool able_to_scale = true;
  bool limited = false;
  std::string reason;  // the condition reason that explains the outcome
  std::string message;
  ConditionView able_to_scale_condition;
  ConditionView scaling_limited_condition;
  std::vector<model::TraceEntry> trace;
  // The next state as if the decision is carried out (persist it only after the patch succeeded).
  model::DecisionState next_state;
  bool apply = false;  // Scale or Rollback and not a dry run: patch replicas
  bool ownership_conflict = false;
  std::vector<MetricEvaluation> metrics;  // per spec metric when available, for currentMetrics
};

// Identity and extra gates; the default is the built-in chain with no identity.
struct DecideOptions {
  const gates::GateChain* chain = nullptr;  // nullptr: GateChain::builtin()
  std::string dha_namespace;
  std::string dha_name;
};

// The pure decision: no I/O, no clock (time is `now`, seconds since the epoch). Runs the
// formula, then the gate chain, then derives the conditions and the next state.
Decision decide(const model::DhaSpec& spec, const model::Observation& observation, const model::DecisionState& state,
                std::int64_t now, const DecideOptions& options = {});

// The `decide` command's output object (docs/decide.md): kind, desiredReplicas,
// rawDesiredReplicas, ableToScale, limited, reason, message, conditions, trace, state.
rapidjson::Value decision_to_json(const Decision& decision, rapidjson::Document::AllocatorType& alloc);

}  // namespace dha::decide
