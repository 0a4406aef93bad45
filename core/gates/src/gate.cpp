#include "dha/gates/gate.hpp"

namespace dha::gates {

void freeze(Proposal& p, const GateContext& ctx, std::string reason, std::string message) {
  p.kind = ProposalKind::Freeze;
  p.replicas = ctx.current();
  p.able_reason = std::move(reason);
  p.able_message = std::move(message);
}

void mark_limited(Proposal& p, std::string reason, std::string message) {
  p.limited = true;
  p.limited_reason = std::move(reason);
  p.limited_message = std::move(message);
}

}  // namespace dha::gates
