#pragma once

#include <cstdint>

#include "dha/decide/decide.hpp"
#include "dha/model/status.hpp"

// How a decision reads in a DHA's status. The decision core returns a decision; turning it into
// counts, currentMetrics, lastDecision and conditions is reporting, and happens here.
namespace dha::status {

// Condition types. ScalingActive says whether the target can be worked on at all; AbleToScale
// and ScalingLimited come from the decision.
inline constexpr const char* kScalingActive = "ScalingActive";
inline constexpr const char* kAbleToScale = "AbleToScale";
inline constexpr const char* kScalingLimited = "ScalingLimited";

// Writes a decision into DHA status: counts, currentMetrics, lastDecision, the AbleToScale and
// ScalingLimited conditions (transition time kept unless the status flips) and the next state.
// Called once the decision is carried out (after a successful patch).
void store_in_status(model::DhaStatus& status, const decide::Decision& decision, std::int64_t now,
                     std::int64_t generation);

// `next` with lastDecision.time carried over from `previous` when the decision itself (kind,
// counts, reason, message, trace) is unchanged: the time says since when this decision holds,
// and a status that only differs in that time is not rewritten every cycle.
void keep_decision_time(const model::DhaStatus& previous, model::DhaStatus& next);

}  // namespace dha::status
