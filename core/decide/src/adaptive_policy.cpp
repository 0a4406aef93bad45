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
    const std::int64_t ready = state.ready_seconds.value_or(kAssumedReadySeconds);
    double slope = 0;
    if (again) slope = std::max(0.0, (demand - previous->read_replicas) / static_cast<double>(now - previous->time));
    const double expected = demand + slope * static_cast<double>(ready);
    // With the same headroom a fall must keep: a size at the edge of its load would be the next
    // overload at the next bit of noise.
    const std::int32_t proposal =
        std::max(total_for(expected / (1 - rules.down_hysteresis), obs.primary_count), saturating_add(current, 1));
    return {proposal, comfortable, "Overload",
            fmt::format("demand {:.2f} read replicas over {:g}; {:.2f} expected in {}s when new replicas are ready; "
                        "{} replicas keep {:g}% headroom",
                        demand, reads, expected, ready, proposal, rules.down_hysteresis * 100)};
  }
  if (comfortable < current) {
    // No fall that the load's own growth would reverse before a replica asked for again could be
    // ready and the down-window had passed: down then up is two moves and an overload between.
    if (previous != nullptr && demand > previous->read_replicas) {
      const std::int64_t ready = state.ready_seconds.value_or(kAssumedReadySeconds);
      const std::int64_t reversal = ready + spec.behavior.scale_down.stabilization_window_seconds;
      const double slope = (demand - previous->read_replicas) / static_cast<double>(now - previous->time);
      const double expected = demand + slope * static_cast<double>(reversal);
      if (total_for(expected, obs.primary_count) > comfortable) {
        const std::int32_t held =
            std::min(current, total_for(expected / (1 - rules.down_hysteresis), obs.primary_count));
        return {std::max(held, comfortable), comfortable, "Rising",
                fmt::format("demand {:.2f} read replicas is rising: {:.2f} expected within {}s would overload "
                            "{} replicas again; holding {}",
                            demand, expected, reversal, comfortable, std::max(held, comfortable))};
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
  // headroom, the replicas a need is coming back for, but it raises only for a load the current
  // size cannot serve: the same two thresholds the load itself has (an overload to go up, the
  // headroom to go down), so a forecast that wavers within the headroom moves nothing.
  const auto& f = *obs.forecast;
  const std::int32_t current = obs.current_replicas;
  const double headroom = 1 - spec.behavior.adaptive.down_hysteresis;
  const std::int32_t ahead = total_for(f.read_replicas / headroom, obs.primary_count);
  const bool overload_expected = f.read_replicas > read_replicas(current, obs.primary_count);
  const std::int32_t wanted = overload_expected ? ahead : std::min(ahead, current);
  const std::string seen = fmt::format("forecast {:.2f} read replicas within {}s", f.read_replicas, f.horizon_seconds);
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
      a.message += fmt::format(" (within what {} replicas serve: nothing to pre-provision)", current);
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
