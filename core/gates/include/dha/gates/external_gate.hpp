#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "dha/gates/gate.hpp"

namespace dha::gates {

struct ExternalGateResult {
  bool ok = false;
  std::string response_json;  // when ok
  std::string error;          // when not ok
};

// An extra guardrail outside the core, e.g. a loaded `dha.gate/1` plugin (the operator adapts
// those to this interface). Request and response JSON follow sdk/include/dha/ext/gate.h:
//   request  {"now", "dha": {"namespace", "name"}, "spec", "observation", "state",
//             "proposal": {"kind": "Scale"|"NoChange"|"Rollback", "currentReplicas", "replicas"}}
//   response {"verdict": "pass"} | {"verdict": "clamp", "replicas", "reason", "message"}
//            | {"verdict": "freeze", "reason", "message"}
// Must be pure and thread-safe. An error (or an exception) freezes the decision: fail closed.
class ExternalGate {
 public:
  virtual ~ExternalGate() = default;
  virtual std::string_view name() const = 0;
  virtual ExternalGateResult evaluate(std::string_view request_json) const = 0;
};

// A gate's answer as the host reads it. `refusal` non-empty: the answer breaks the rules below
// and the host freezes with GateError instead; otherwise `verdict` is "pass", "clamp" (to
// `replicas`) or "freeze". Shared by PluginGate and the test kit's direct gate calls, so a test
// refuses exactly what the operator refuses.
struct ReadVerdict {
  std::string refusal;
  std::string verdict;
  std::int32_t replicas = 0;
  std::string reason;
  std::string message;
};
ReadVerdict read_verdict(std::string_view response_json, std::int32_t current, std::int32_t proposed);

// Runs an ExternalGate as a link of the chain. Checks the verdict: a clamp may only move the
// proposal toward currentReplicas, a reason must be a condition reason (CamelCase); anything
// else, or an error, is a freeze with reason GateError.
class PluginGate final : public Gate {
 public:
  explicit PluginGate(std::shared_ptr<const ExternalGate> gate);
  std::string_view name() const override { return name_; }
  bool sees(const Proposal& p) const override { return p.kind != ProposalKind::Freeze; }
  GateNote apply(Proposal& p, const GateContext& ctx) const override;

  // The request document sent to the gate (exposed for tests and tools).
  static std::string build_request(const Proposal& p, const GateContext& ctx);

 private:
  std::shared_ptr<const ExternalGate> gate_;
  std::string name_;
};

}  // namespace dha::gates
