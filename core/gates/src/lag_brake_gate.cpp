#include <fmt/format.h>

#include <cmath>

#include "dha/gates/builtin_gates.hpp"
#include "dha/gates/reasons.hpp"

namespace dha::gates {

GateNote LagBrakeGate::apply(Proposal& p, const GateContext& ctx) const {
  const auto& lag = ctx.observation.lag_seconds;
  const auto threshold = ctx.spec.constraints.max_replication_lag_seconds;
  // A missing or unreadable (NaN) lag reading fails open, as in the reference: the brake is a
  // refinement, and the metric fail-safe already covers a blind database.
  if (!lag || std::isnan(*lag)) return {reasons::kPass, "no replication lag signal"};
  if (*lag <= threshold) return {reasons::kPass, fmt::format("replication lag {}s <= {}s", *lag, threshold)};
  const auto& writes = ctx.observation.write_rate;
  // Lag is known to be high: unknown write activity brakes (conservative); only a positive rate
  // brakes otherwise, since lag without writes is a stale gauge, not a lagging replica.
  const bool active = !writes || std::isnan(*writes) || *writes > 0;
  if (!active) return {reasons::kPass, fmt::format("replication lag {}s > {}s but no writes", *lag, threshold)};
  std::string msg = "replication lag above threshold with active writes";
  freeze(p, ctx, reasons::kReplicationLag, msg);
  return {reasons::kReplicationLag, fmt::format("{} ({}s > {}s)", msg, *lag, threshold)};
}

}  // namespace dha::gates
