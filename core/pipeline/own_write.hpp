#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

#include "dha/model/decision_state.hpp"
#include "dha/sdk/actuator_types.hpp"

// Recognising our own write on a target, whatever the actuator. An actuator's plan for "bring
// this DHA's target to N replicas" says what such a write leaves on the object. The target shows
// our write of its current count N when it already carries everything that plan writes, AND the
// plan carries who wrote it (a part that differs for another DHA) and the count somewhere besides
// the replicas field itself (a part that differs for another count). Without both, any writer
// who set the same count would pass for us; an actuator that records neither is never adopted.
namespace dha::pipeline {

// Every request of `plan` is already in effect on `target`: each merge-patch leaf equals the
// target's value (null: absent), each JSON-patch test/add/replace value equals it (remove:
// absent). /scale requests carry the count, which the caller has already compared.
bool plan_in_effect(const sdk::ActuatorPlan& plan, const rapidjson::Value& target);

// Whether `ours` (the plan for this DHA and the current count) is in effect on `target` and
// differs, in parts in effect, from `other_dha` (the same count for another DHA) and from
// `other_count` (this DHA, another count) outside `replicas_path`.
bool target_shows_our_write(const sdk::ActuatorPlan& ours, const sdk::ActuatorPlan& other_dha,
                            const sdk::ActuatorPlan& other_count, const rapidjson::Value& target,
                            const std::string& replicas_path);

// Records `current` as our write in flight from `now` when the state's lastAppliedReplicas
// differs from it and `ours` is true. Returns whether it did.
bool adopt_if_ours(model::DecisionState& state, std::int32_t current, std::int64_t now, bool ours);

}  // namespace dha::pipeline
