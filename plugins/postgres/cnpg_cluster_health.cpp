#include "cnpg_cluster_health.hpp"

#include <string_view>

namespace dha::plugins {

namespace {

bool phase_blocks_operation(std::string_view phase) {
  return phase == "Failing over" || phase == "Switchover in progress" || phase.starts_with("Unable") ||
         phase.starts_with("Cluster cannot");
}

}  // namespace

sdk::Health read_cnpg_cluster_health(const sdk::json::Value& cluster) {
  const sdk::json::Value* status = sdk::json::find(cluster, "status");
  if (status == nullptr || !status->IsObject()) {
    throw sdk::Error(DHA_FAILED_PRECONDITION, "the CNPG Cluster has no status yet");
  }
  const sdk::json::Value* phase = sdk::json::find(*status, "phase");
  const sdk::json::Value* instances = sdk::json::find(*status, "instances");
  if (phase == nullptr && instances == nullptr) {
    throw sdk::Error(DHA_FAILED_PRECONDITION, "the CNPG Cluster status has neither phase nor instances yet");
  }
  if (phase != nullptr && !phase->IsString()) {
    throw sdk::Error(DHA_FAILED_PRECONDITION, "the CNPG Cluster status.phase is not a string");
  }
  const sdk::json::Value* ready = sdk::json::find(*status, "readyInstances");
  if (ready != nullptr && !ready->IsNumber()) {
    throw sdk::Error(DHA_FAILED_PRECONDITION, "the CNPG Cluster status.readyInstances is not a number");
  }
  sdk::Health h;
  h.available_replicas = ready == nullptr ? 0 : sdk::values::saturate_int32(sdk::json::truncate_to_int64(*ready));
  h.operational = h.available_replicas >= 1 && !(phase != nullptr && phase_blocks_operation(sdk::json::view(*phase)));
  return h;
}

}  // namespace dha::plugins
