#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

#include "dha/kube/client.hpp"
#include "dha/model/status.hpp"
#include "operator/self_metrics.hpp"

// The built-in status writer: puts a DHA's status through the /status subresource, only when
// something changed, and re-reads on a 409 Conflict (the DHA changed under us; status is ours
// alone, so the fresh object simply gets the same status).
namespace dha::op {

// Condition types and the ScalingActive reasons the reconciler sets (AbleToScale and
// ScalingLimited come from the decision core).
inline constexpr const char* kScalingActive = "ScalingActive";
inline constexpr const char* kAbleToScale = "AbleToScale";
inline constexpr const char* kScalingLimited = "ScalingLimited";

// `next` with lastDecision.time carried over from `previous` when the decision itself (kind,
// counts, reason, message, trace) is unchanged: the time says since when this decision holds,
// and a status that only differs in that time is not rewritten every cycle.
void keep_decision_time(const model::DhaStatus& previous, model::DhaStatus& next);

class StatusWriter {
 public:
  StatusWriter(kube::Client& client, SelfMetrics& metrics) : client_(client), metrics_(metrics) {}

  // Writes `next` onto `dha` (as last read) unless it equals `previous`. Returns whether a write
  // happened. Throws kube::ApiError when the write fails for another reason than a conflict, or
  // when conflicts persist over several re-reads; NotFound (the DHA is gone) returns false.
  bool write(const rapidjson::Value& dha, const model::DhaStatus& previous, const model::DhaStatus& next);

 private:
  kube::Client& client_;
  SelfMetrics& metrics_;
};

}  // namespace dha::op
