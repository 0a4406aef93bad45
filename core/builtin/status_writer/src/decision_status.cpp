#include "dha/status_writer/decision_status.hpp"

#include <cmath>

#include "dha/model/quantity.hpp"
#include "dha/model/recommendation_history.hpp"

namespace dha::status {

void store_in_status(model::DhaStatus& status, const decide::Decision& d, std::int64_t now, std::int64_t generation) {
  status.observed_generation = generation;
  status.current_replicas = d.current_replicas;
  status.desired_replicas = d.desired_replicas;
  status.state = d.next_state;
  // One entry per cycle would fill describe with a list of repeats; only the entries that can
  // still be a window's minimum or maximum are kept, so every window decides as before.
  model::drop_redundant_recommendations(status.state.recommendations);
  status.current_metrics.clear();
  for (const auto& m : d.metrics) {
    model::CurrentMetric cm;
    cm.type = std::string(model::to_string(m.type));
    // CPU as truncated millicores ("250m"), connections rounded half-up ("76"): how the reference
    // operator renders them, so dashboards built on it keep reading the same numbers.
    if (m.type == model::MetricType::ReadCPUUtilization)
      cm.average_value = model::format_milli_quantity(static_cast<std::int64_t>(std::trunc(m.average)));
    else
      cm.average_value = model::format_plain_quantity(static_cast<std::int64_t>(std::floor(m.average + 0.5)));
    status.current_metrics.push_back(std::move(cm));
  }
  status.last_decision =
      model::LastDecision{now, d.kind, d.raw_desired_replicas, d.desired_replicas, d.reason, d.message, d.trace};
  for (const decide::ConditionView* c : {&d.able_to_scale_condition, &d.scaling_limited_condition})
    model::set_condition(status.conditions, model::Condition{c->type, c->status, c->reason, c->message, 0, generation},
                         now);
}

void keep_decision_time(const model::DhaStatus& previous, model::DhaStatus& next) {
  if (!previous.last_decision || !next.last_decision) return;
  model::LastDecision prev = *previous.last_decision;
  prev.time = next.last_decision->time;
  if (prev == *next.last_decision) next.last_decision->time = previous.last_decision->time;
}

}  // namespace dha::status
