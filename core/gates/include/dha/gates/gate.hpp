#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dha/gates/gate_context.hpp"
#include "dha/gates/proposal.hpp"

namespace dha::gates {

// What a gate says about the proposal for the trace entry {gate, in, out, reason, message}.
struct GateNote {
  std::string reason;
  std::string message;
};

// One guardrail. A gate looks at the proposal, may pass, clamp or freeze it, and explains.
class Gate {
 public:
  virtual ~Gate() = default;
  virtual std::string_view name() const = 0;
  // Most gates shape an open proposal only; the write-path gates (ownership, dry-run, plugins)
  // also see a rollback. Nobody sees a freeze: it is final.
  virtual bool sees(const Proposal& proposal) const { return proposal.kind == ProposalKind::Open; }
  virtual GateNote apply(Proposal& proposal, const GateContext& ctx) const = 0;
};

// Helpers shared by the gates.
// now - then, saturated: times come from user input and must not overflow.
std::int64_t seconds_since(std::int64_t now, std::int64_t then);
void freeze(Proposal& proposal, const GateContext& ctx, std::string reason, std::string message);
void mark_limited(Proposal& proposal, std::string reason, std::string message);

}  // namespace dha::gates
