#pragma once

#include <cstdint>

#include "dha/model/spec.hpp"
#include "dha/model/status.hpp"

// Windows count from creation. A DHA with no decision in its status has no history, so its
// first decision would pass both stabilization windows at once: a new DHA (or one recreated to
// clear a conflict, or adopting a running database) could remove a replica seconds after it
// appeared. Instead the first observation enters the history as if the current count had been
// recommended then, so a scale-down waits the whole down window (and a scale-up the up window)
// from that moment (a zero up window stays zero). behavior.immediateFirstDecision opts out. The
// decision core is unchanged: this is only the state it is given.
namespace dha::pipeline {

model::DecisionState state_for_decide(const model::DhaStatus& previous, const model::DhaSpec& spec,
                                      std::int32_t current_replicas, std::int64_t now);

}  // namespace dha::pipeline
