#include "dha/decide/adaptive_policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dha/decide/saturating.hpp"

namespace dha::decide {
namespace {

const model::Demand* recent_demand(const model::DecisionState& state, std::int64_t now) {
  if (!state.last_demand) return nullptr;
  const std::int64_t age = now - state.last_demand->time;
  return age > 0 && age <= kDemandMemorySeconds ? &*state.last_demand : nullptr;
}

std::int32_t total_for(double read_replicas, std::int32_t primary_count) {
  const std::int32_t reads = std::max(saturate_to_int32(std::ceil(read_replicas)), 1);
  return saturating_add(reads, primary_count);
}

}  // namespace

std::string ReadyTime::origin() const {
  switch (source) {
    case Source::Measured:
      return "measured on our last scale-up";
    case Source::Estimated:
      return "estimated by the engine adapter";
    case Source::Assumed:
      break;
  }
  return "assumed: none measured or estimated yet";
}

ReadyTime ready_time(const model::DhaSpec& spec, std::optional<std::int64_t> measured, std::optional<double> estimate) {
  if (measured) return {*measured, ReadyTime::Source::Measured};
  if (!estimate || !std::isfinite(*estimate) || *estimate <= 0) return {};
  const double most =
      std::max<double>(kMinReadyEstimateSeconds, static_cast<double>(spec.behavior.convergence_deadline_seconds));
  const double bounded = std::clamp(*estimate, static_cast<double>(kMinReadyEstimateSeconds), most);
  return {static_cast<std::int64_t>(std::llround(bounded)), ReadyTime::Source::Estimated};
}

double demand_read_replicas(const MetricsResult& metrics, std::int32_t current, std::int32_t primary_count) {
  const double rcur = read_replicas(current, primary_count);
  double demand = 0;
  for (const auto& m : metrics.metrics) demand = std::max(demand, m.average * rcur / m.target);
  return demand;
}

namespace {

// What the load seen now asks for.
AdaptiveProposal reactive_proposal(const model::DhaSpec& spec, const model::Observation& obs,
                                   const model::DecisionState& state, double demand, std::int64_t now) {
  const auto& rules = spec.behavior.adaptive;
  const std::int32_t current = obs.current_replicas;
  const double reads = read_replicas(current, obs.primary_count);
  const model::Demand* previous = recent_demand(state, now);
  // Down only to a size that keeps the hysteresis margin below target.
  const std::int32_t comfortable = total_for(demand / (1 - rules.down_hysteresis), obs.primary_count);

  if (demand > reads) {
    // One sample above target may be noise; far above it, or twice in a row, is an overload.
    const bool far_above = demand >= reads * (1 + rules.up_margin);
    const bool again = previous != nullptr && previous->read_replicas > reads;
    if (!far_above && !again)
      return {current, comfortable, "Unconfirmed",
              fmt::format("demand {:.2f} read replicas is above {:g} but within the {:g}% margin; "
                          "confirming next cycle",
                          demand, reads, rules.up_margin * 100)};
    // Size the step for the load expected when the new replicas are ready, not for now. Only an
    // overload that is still growing has a trend; a jump from within target is met at its size.
    const ReadyTime ready_in = ready_time(spec, obs, state);
    const std::int64_t ready = ready_in.seconds;
    double slope = 0;
    if (again) slope = std::max(0.0, (demand - previous->read_replicas) / static_cast<double>(now - previous->time));
    const double expected = demand + slope * static_cast<double>(ready);
    // With the same headroom a fall must keep: a size at the edge of its load would be the next
    // overload at the next bit of noise.
    const std::int32_t proposal =
        std::max(total_for(expected / (1 - rules.down_hysteresis), obs.primary_count), saturating_add(current, 1));
    return {proposal, comfortable, "Overload",
            fmt::format("demand {:.2f} read replicas over {:g}; {:.2f} expected in {}s when new replicas are ready "
                        "({}); {} replicas keep {:g}% headroom",
                        demand, reads, expected, ready, ready_in.origin(), proposal, rules.down_hysteresis * 100)};
  }
  if (comfortable < current) {
    // No fall that the load's own growth would reverse before a replica asked for again could be
    // ready and the down-window had passed: down then up is two moves and an overload between.
    if (previous != nullptr && demand > previous->read_replicas) {
      const ReadyTime ready = ready_time(spec, obs, state);
      const std::int64_t reversal = ready.seconds + spec.behavior.scale_down.stabilization_window_seconds;
      const double slope = (demand - previous->read_replicas) / static_cast<double>(now - previous->time);
      const double expected = demand + slope * static_cast<double>(reversal);
      if (total_for(expected, obs.primary_count) > comfortable) {
        const std::int32_t held =
            std::min(current, total_for(expected / (1 - rules.down_hysteresis), obs.primary_count));
        return {std::max(held, comfortable), comfortable, "Rising",
                fmt::format("demand {:.2f} read replicas is rising: {:.2f} expected within {}s (a replica ready in "
                            "{}s, {}, and the down-window) would overload {} replicas again; holding {}",
                            demand, expected, reversal, ready.seconds, ready.origin(), comfortable,
                            std::max(held, comfortable))};
      }
    }
    return {comfortable, comfortable, "Headroom",
            fmt::format("{} replicas keep {:g}% headroom for demand {:.2f} read replicas", comfortable,
                        rules.down_hysteresis * 100, demand)};
  }
  return {current, comfortable, "Pass",
          fmt::format("demand {:.2f} read replicas is within target at {:g} and too close to it to go smaller", demand,
                      reads)};
}

}  // namespace

AdaptiveProposal adaptive_proposal(const model::DhaSpec& spec, const model::Observation& obs,
                                   const model::DecisionState& state, double demand, std::int64_t now) {
  AdaptiveProposal a = reactive_proposal(spec, obs, state, demand, now);
  if (!spec.behavior.adaptive.predictive) return a;
  if (!obs.forecast) {
    if (!obs.forecast_missing.empty()) a.message += "; no forecast: " + obs.forecast_missing;
    return a;
  }
  // The forecast only ever raises or holds; it never scales down by itself. It holds, with the
  // headroom, the replicas its upper figure (estimate + margin) needs, but it raises only for a
  // load the current size cannot serve: the same two thresholds the load itself has (an overload
  // to go up, the headroom to go down), so a forecast that wavers within the headroom moves nothing.
  // Which figure must be above the current size to raise depends on how full that size is now: a
  // size the load already fills past its headroom is raised on the upper figure, as noise within
  // the margin would overload it; a comfortable one only on the central estimate, since raising it
  // for the margin alone is a replica bought for a load that mostly does not come (and, on a quiet
  // day, given back the same afternoon: two actions for nothing).
  const auto& f = *obs.forecast;
  const std::int32_t current = obs.current_replicas;
  const double reads = read_replicas(current, obs.primary_count);
  const double headroom = 1 - spec.behavior.adaptive.down_hysteresis;
  const std::int32_t ahead = total_for(f.read_replicas / headroom, obs.primary_count);
  const bool filled = demand > headroom * reads;
  const bool overload_expected = (filled ? f.read_replicas : f.central()) > reads;
  const std::int32_t wanted = overload_expected ? ahead : std::min(ahead, current);
  std::string seen = fmt::format("forecast {:.2f} read replicas within {}s", f.read_replicas, f.horizon_seconds);
  if (f.estimate) seen += fmt::format(" (estimate {:.2f})", *f.estimate);
  // Watching the forecast before trusting it: say what it would do, do what the load asks.
  if (spec.behavior.adaptive.forecast_only) {
    a.message += wanted > a.replicas
                     ? fmt::format("; {}: would pre-provision {} replicas (forecast only)", seen, wanted)
                     : fmt::format("; {}: nothing to pre-provision (forecast only)", seen);
    return a;
  }
  a.recorded = std::max(a.recorded, ahead);
  if (wanted <= a.replicas) {
    a.message += "; " + seen;
    if (ahead > current && !overload_expected)
      a.message += f.read_replicas > reads
                       ? fmt::format(
                             " (only its margin is above what {} replicas serve, and the load leaves them "
                             "their {:g}% headroom: nothing to pre-provision)",
                             current, spec.behavior.adaptive.down_hysteresis * 100)
                       : fmt::format(" (within what {} replicas serve: nothing to pre-provision)", current);
    return a;
  }
  return {wanted, a.recorded, "Forecast",
          fmt::format("{}: {} replicas ahead of it (now: {})", seen, wanted, a.message)};
}

void remember_adaptive(model::DecisionState& next, const model::DecisionState& before, const model::Observation& obs,
                       std::optional<double> demand, std::int64_t now) {
  if (demand) next.last_demand = model::Demand{now, *demand};
  // Our scale-up just converged: that is how long a replica takes here (at most one cycle late).
  const bool grew = before.last_applied_replicas && before.last_converged_replicas &&
                    *before.last_applied_replicas > *before.last_converged_replicas;
  if (before.in_flight_since && !next.in_flight_since && grew && obs.current_replicas == *before.last_applied_replicas)
    next.ready_seconds = std::max<std::int64_t>(now - *before.in_flight_since, 0);
}

}  // namespace dha::decide
