#pragma once

#include <cstdint>
#include <string>

#include "dha/decide/decide.hpp"
#include "dha/model/status.hpp"

// What held the count this cycle, named as an HPA names it. The decision's conditions say
// Ready/"within limits" when a window or a step only slowed the count; a tenant reading
// `kubectl get dha` should see the gate instead, with its numbers.
namespace dha::status {

// Condition reasons for holds that are not failures.
inline constexpr const char* kScaleUpStabilized = "ScaleUpStabilized";
inline constexpr const char* kScaleDownStabilized = "ScaleDownStabilized";

// On top of store_in_status: AbleToScale True with ScaleUpStabilized/ScaleDownStabilized when a
// stabilization window held the count; ScalingLimited True with StepLimited when the step limit
// did. A freeze (ScaleInFlight and the like) stops the chain before the limits are evaluated,
// so a limit that clamped the count before it keeps ScalingLimited as it was.
void name_holds(model::DhaStatus& status, const decide::Decision& decision, const model::DhaStatus& previous,
                std::int64_t now, std::int64_t generation);

// The one-line summary: the decision in words, "would scale" in a dry run, then each hold with
// its gate and numbers ("...; ScaleDownStabilized: Stabilization: 4 -> 2 (...)").
std::string status_summary(const model::DhaSpec& spec, const model::DhaStatus& status, std::int32_t current);

}  // namespace dha::status
