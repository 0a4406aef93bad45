#pragma once

#include <vector>

#include "dha/decide/decide.hpp"
#include "dha/model/observation.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"

// status.currentMetrics: what each metric read this cycle, for the Metrics column. The decision
// uses no metric when one of them fails (it freezes rather than scale on part of the load), but
// the tenant still sees each metric on its own: the one that failed as <unknown>, the others
// with their reading.
namespace dha::status {

// One entry per spec metric that has a reading, in spec order, per read-serving replica: the
// decision's evaluation when it made one, else the observation's total over the read replicas
// (as the formula divides it). CPU as truncated millicores ("250m"), a utilization as a whole
// percent ("65"), connections rounded half-up ("76"). A metric without a finite reading is left
// out, so that it shows <unknown>. `observation` may be null (only the decision's metrics).
std::vector<model::CurrentMetric> metric_readings(const model::DhaSpec& spec, const decide::Decision& decision,
                                                  const model::Observation* observation);

}  // namespace dha::status
