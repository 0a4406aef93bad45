#pragma once

// Reading health from a cozystack WorkloadMonitor (missing or unreadable: "health unknown", and
// the host freezes). It is the default EngineAdapter::health and the host may call it directly.
//
//   status.operational      bool; absent → true (the reference reads a nil *bool as true)
//   status.availableReplicas int32; absent → 0 (Go's omitempty drops a zero count)
//
// An object without a status, or whose status carries neither field, has not been observed by
// its controller yet: that is DHA_FAILED_PRECONDITION, and the host freezes with HealthUnknown
// rather than assume healthy (fail closed). Fields of the wrong type are the same error.

#include <string>

#include "dha/sdk/engine_types.hpp"
#include "dha/sdk/json.hpp"
#include "dha/sdk/values.hpp"

namespace dha::sdk {

inline Health read_workload_monitor_health(const json::Value& object) {
  const json::Value* status = json::find(object, "status");
  if (status == nullptr || !status->IsObject()) {
    throw Error(DHA_FAILED_PRECONDITION, "health object has no status yet");
  }
  const json::Value* operational = json::find(*status, "operational");
  const json::Value* available = json::find(*status, "availableReplicas");
  if (operational == nullptr && available == nullptr) {
    throw Error(DHA_FAILED_PRECONDITION, "health object status has neither operational nor availableReplicas yet");
  }
  Health h{true, 0};
  if (operational != nullptr && !operational->IsNull()) {
    if (!operational->IsBool()) {
      throw Error(DHA_FAILED_PRECONDITION, "health object status.operational is not a boolean");
    }
    h.operational = operational->GetBool();
  }
  if (available != nullptr && !available->IsNull()) {
    if (!available->IsNumber()) {
      throw Error(DHA_FAILED_PRECONDITION, "health object status.availableReplicas is not a number");
    }
    h.available_replicas = values::saturate_int32(json::truncate_to_int64(*available));
  }
  return h;
}

}  // namespace dha::sdk
