#pragma once

// Condition reasons (docs/behaviour.md#conditions) and the trace reasons gates use when they
// pass or reshape a proposal without a condition of their own.
namespace dha::gates::reasons {

// AbleToScale
inline constexpr const char* kReady = "Ready";
inline constexpr const char* kMetricUnavailable = "MetricUnavailable";
inline constexpr const char* kInvalidMetricTarget = "InvalidMetricTarget";
inline constexpr const char* kQuorumExceedsQuota = "QuorumExceedsQuota";
inline constexpr const char* kStuckScaling = "StuckScaling";
inline constexpr const char* kScaleInFlight = "ScaleInFlight";
inline constexpr const char* kNotConverged = "NotConverged";
inline constexpr const char* kHealthUnknown = "HealthUnknown";
inline constexpr const char* kNotOperational = "NotOperational";
inline constexpr const char* kReplicationLag = "ReplicationLag";
inline constexpr const char* kGateError = "GateError";  // a plugin gate failed: fail closed

// ScalingLimited
inline constexpr const char* kOwnershipConflict = "OwnershipConflict";
inline constexpr const char* kAtLimit = "AtLimit";
inline constexpr const char* kQuorumFloor = "QuorumFloor";
inline constexpr const char* kQuotaExceeded = "QuotaExceeded";

// Trace-only
inline constexpr const char* kPass = "Pass";
inline constexpr const char* kConverged = "Converged";
inline constexpr const char* kStabilized = "Stabilized";
inline constexpr const char* kMinReplicas = "MinReplicas";
inline constexpr const char* kStepLimited = "StepLimited";
inline constexpr const char* kQuorumExemption = "QuorumExemption";
inline constexpr const char* kDryRun = "DryRun";

}  // namespace dha::gates::reasons
