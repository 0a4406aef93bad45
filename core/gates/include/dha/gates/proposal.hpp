#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dha::gates {

// Open: still shaped by metrics (becomes Scale or NoChange at the end of the chain).
// Freeze: AbleToScale False, count held at current; later gates do not see it.
// Rollback: AbleToScale False, count set to the last converged size.
enum class ProposalKind { Open, Freeze, Rollback };

// The count travelling down the gate chain and the condition facts gates attach to it.
struct Proposal {
  ProposalKind kind = ProposalKind::Open;
  std::int32_t replicas = 0;
  // Stabilized and bounded, before the step limit (set by the Bounds gate). Only a natural
  // target below a failed size clears the backoff (docs/behaviour.md#backoff-clearing).
  std::optional<std::int32_t> natural;
  std::string able_reason;  // AbleToScale False reason/message for Freeze and Rollback
  std::string able_message;
  bool limited = false;  // ScalingLimited True; the last clamp wins
  std::string limited_reason;
  std::string limited_message;
  bool carry_out = true;  // false in dry-run: the decision is reported, not applied
};

}  // namespace dha::gates
