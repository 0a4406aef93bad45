#include "dha/gates/gate.hpp"

#include <limits>

namespace dha::gates {

void freeze(Proposal& p, const GateContext& ctx, std::string reason, std::string message) {
  p.kind = ProposalKind::Freeze;
  p.replicas = ctx.current();
  p.able_reason = std::move(reason);
  p.able_message = std::move(message);
}

std::int64_t seconds_since(std::int64_t now, std::int64_t then) {
  std::int64_t age = 0;
  if (__builtin_sub_overflow(now, then, &age))
    return then < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return age;
}

void mark_limited(Proposal& p, std::string reason, std::string message) {
  p.limited = true;
  p.limited_reason = std::move(reason);
  p.limited_message = std::move(message);
}

}  // namespace dha::gates
