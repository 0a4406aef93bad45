#pragma once

#include <string>

#include "dha/decide/decide.hpp"
#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"

// The text of the events the status writer sends, and when a repeated one is held back.
namespace dha::status {

// "ReadConnections 210/150, ReadCPUUtilization 250/500" from the decision's metric evaluations.
std::string metrics_summary(const decide::Decision& d);
// The Normal DryRunScale message ("would scale 3 -> 4: <why>"), or "" when the would-be count
// is unchanged since the last status: a dry run announces each new count once, not every cycle.
std::string dry_run_event_message(const model::DhaSpec& spec, const decide::Decision& d,
                                  const model::DhaStatus& previous);
// True when the previous status already reported the ownership conflict (the persisted latch).
bool conflict_already_reported(const model::DhaStatus& previous);

}  // namespace dha::status
